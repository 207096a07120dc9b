#!/usr/bin/env node
// `npm run test:docs`: the shell sessions of README.md and docs/*.md, run as
// pasted against a dev server, with every HTTP status checked.
//
// The convention (README, "Contributing"; in short): a fenced block whose info string is
// `sh session` is a session a reader pastes into a terminal where `npm run
// dev` serves the API. A file's sessions run in order in one bash (so later
// blocks use the variables of earlier ones), in a scratch directory inside
// the repository, against a fresh local D1 with the migrations and the sample
// data. Every curl must answer 2xx or 3xx, unless its command ends with a
// comment `# → NNN` naming the status it must answer instead. A block whose
// info string is `<language> file=<name>` (e.g. a webhook receiver) is
// written to <name> in that directory first. RECEIVER_PORT is a free
// loopback port for a server a session starts. Other ```sh blocks (installs,
// deploys, secrets) are never run.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { freePort } from "../tools/lib/ports.mjs";
import { tempDir } from "../tools/lib/process-end.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";
import { ROOT, applyMigrations, d1Target } from "../tools/lib/wrangler.mjs";

const USAGE = "usage: npm run test:docs [-- <file.md>...]   (default: README.md and docs/*.md)";
const DOCUMENTED_ORIGIN = "http://127.0.0.1:8787";
const EXPECTED = /#\s*→\s*(\d{3})\s*$/;
const STATUS_LINE = /^DOCS-STATUS (\d+) (\d{3}) (\S+) (\S+)$/;

/** The `sh session` blocks of a Markdown text, each with the line it starts on. */
export function sessionBlocks(markdown) {
  return [...markdown.matchAll(/^```sh session\n([\s\S]*?)^```$/gm)].map((m) => ({
    text: m[1],
    line: markdown.slice(0, m.index).split("\n").length + 1,
  }));
}

/** The blocks a file's sessions use as files: `{ name, text }`. */
export function fileBlocks(markdown) {
  return [...markdown.matchAll(/^```\w+ file=(\S+)\n([\s\S]*?)^```$/gm)].map((m) => ({ name: m[1], text: m[2] }));
}

/**
 * One bash script of a file's sessions, and the expected status of each
 * command (by its script line range). curl reports each request's status on
 * stderr, with the script line it was called from.
 */
export function sessionScript(blocks, origin) {
  const prelude = [
    "set -euo pipefail",
    "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT", // a server the session started
    `curl() { command curl -sS -w "%{stderr}DOCS-STATUS \${BASH_LINENO[0]} %{http_code} %{method} %{url_effective}\\n" "$@"; }`,
  ];
  const lines = [...prelude];
  const expectations = [];
  for (const block of blocks) {
    const blockLines = block.text.replaceAll(DOCUMENTED_ORIGIN, origin).replace(/\n$/, "").split("\n");
    let start = null;
    blockLines.forEach((text, i) => {
      const scriptLine = lines.length + 1;
      start ??= scriptLine;
      lines.push(text);
      if (text.endsWith("\\")) return;
      const expected = EXPECTED.exec(text)?.[1];
      expectations.push({ from: start, to: scriptLine, expected: expected ? Number(expected) : null, docLine: block.line + i });
      start = null;
    });
  }
  return { script: `${lines.join("\n")}\n`, expectations };
}

/** Problems with the statuses a run reported (`stderr`), given the commands' expectations. */
export function statusProblems(stderr, expectations) {
  const problems = [];
  const seen = new Set();
  for (const line of stderr.split("\n")) {
    const m = STATUS_LINE.exec(line);
    if (!m) continue;
    const [scriptLine, status, method, url] = [Number(m[1]), Number(m[2]), m[3], m[4]];
    const command = expectations.find((e) => scriptLine >= e.from && scriptLine <= e.to);
    if (command) seen.add(command);
    const expected = command?.expected ?? null;
    const ok = expected === null ? status >= 200 && status < 400 : status === expected;
    if (!ok) problems.push(`line ${command?.docLine ?? "?"}: ${method} ${url} answered ${status}, expected ${expected ?? "2xx or 3xx"}`);
  }
  for (const e of expectations) {
    if (e.expected !== null && !seen.has(e)) problems.push(`line ${e.docLine}: the request expected to answer ${e.expected} never ran`);
  }
  return problems;
}

async function runFile(file) {
  const markdown = readFileSync(file, "utf8");
  const blocks = sessionBlocks(markdown);
  const name = relative(ROOT, file);
  if (blocks.length === 0) return [];
  const state = tempDir("museum-docs-state-");
  const target = d1Target({ persistTo: state.path });
  applyMigrations(target, { quiet: true });
  const seed = spawnSync(process.execPath, [join(ROOT, "scripts", "seed.mjs"), "--local", "--quiet", "--persist-to", state.path], { stdio: "inherit" });
  if (seed.status !== 0) throw new Error("the seed failed");
  const server = await startWranglerDev({ persistTo: state.path, logLevel: "warn" });
  // A scratch directory inside the repository: files a session writes
  // (ticket.png) land there, and `npm run` still finds the project.
  const scratch = join(ROOT, ".wrangler", "docs-sessions", name.replaceAll("/", "_"));
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const { name: fileName, text } of fileBlocks(markdown)) writeFileSync(join(scratch, fileName), text);
  try {
    const { script, expectations } = sessionScript(blocks, server.origin);
    writeFileSync(join(scratch, "session.sh"), script);
    const env = { ...process.env, RECEIVER_PORT: String(await freePort()) };
    const run = spawnSync("bash", ["session.sh"], { cwd: scratch, env, encoding: "utf8", timeout: 120_000 });
    // What the reader would have seen, for a look after a failure.
    writeFileSync(join(scratch, "session.out"), `${run.stdout ?? ""}${run.stderr ?? ""}`);
    const problems = statusProblems(run.stderr ?? "", expectations);
    if (run.status !== 0) {
      problems.push(`the session stopped (exit ${run.status ?? run.signal}):\n${(run.stderr ?? "").split("\n").filter((l) => !STATUS_LINE.test(l)).join("\n")}`);
    }
    const requests = (run.stderr ?? "").split("\n").filter((l) => STATUS_LINE.test(l)).length;
    log(`${name}: ${blocks.length} session block(s), ${requests} requests${problems.length ? "" : ", all as expected"}`);
    return problems.map((p) => `${name} ${p}`);
  } finally {
    await server.stop();
    state.remove();
  }
}

async function main(argv) {
  const { positionals } = parseCommandLine(argv, {});
  ensureDevVars(); // the local accounts the sessions log in with
  const docs = join(ROOT, "docs");
  const files = positionals.length > 0
    ? positionals.map((f) => join(process.env.INIT_CWD ?? process.cwd(), f))
    : [join(ROOT, "README.md"), ...readdirSync(docs).filter((f) => f.endsWith(".md")).sort().map((f) => join(docs, f))];
  const problems = [];
  for (const file of files) problems.push(...(await runFile(file)));
  if (problems.length > 0) {
    for (const p of problems) log(`✗ ${p}`);
    throw new Error(`${problems.length} documented request(s) did not answer as documented`);
  }
  log("every documented session ran as pasted");
}

await runMain(main, USAGE);
