#!/usr/bin/env node
// `npm run test:docs`: the shell sessions of README.md and docs/*.md, run as
// pasted against a dev server, with every HTTP status checked.
//
// The convention (README, "Contributing"; in short): a fenced block whose info string is
// `sh session` is a session a reader pastes into a terminal where `npm run
// dev` serves the API. A file's sessions run in order in one bash (so later
// blocks use the variables of earlier ones), in a scratch directory inside
// the repository, against a fresh local D1 with the migrations and the sample
// data. A session names the server once, in the line `BASE=http://127.0.0.1:8787`
// (the address npm run dev serves by default), which is pointed at this
// runner's server; any other mention of that address in a session is a
// problem. Every curl must answer 2xx or 3xx, unless its command ends with a
// comment `# → NNN` naming the status it must answer instead. A block whose
// info string is `<language> file=<path>` (a webhook receiver, a gate's
// script) is saved where the reader is told to save it, at its place among
// the sessions: the path may use the sessions' variables (`$GATE_APP/x.mjs`).
// RECEIVER_PORT is a free loopback port for a server a session starts. Other
// ```sh blocks (installs, deploys, secrets) are never run.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { freePort } from "../tools/lib/ports.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";

const USAGE = "usage: npm run test:docs [-- <file.md>...]   (default: README.md and docs/*.md)";
const DOCUMENTED_ORIGIN = "http://127.0.0.1:8787";
/** The line of a session that names the server (a comment may follow). */
const BASE_LINE = /^BASE=http:\/\/127\.0\.0\.1:8787(?=\s|$)/;
/** npm run dev's default address, however written. */
const SERVER_ADDRESS = /(?:127\.0\.0\.1|localhost):8787\b/;
const FILE_END = "MUSEUM_DOCS_FILE_END";
const EXPECTED = /#\s*→\s*(\d{3})\s*$/;
const STATUS_LINE = /^DOCS-STATUS (\d+) (\d{3}) (\S+) (\S+)$/;

/**
 * The blocks of a Markdown text that a run uses, in their order: the `sh
 * session` blocks and the file blocks (`name`: the path to save it at), each
 * with the line it starts on.
 */
export function runBlocks(markdown) {
  return [...markdown.matchAll(/^```(?:sh (session)|\w+ file=(\S+))\n([\s\S]*?)^```$/gm)].map((m) => ({
    session: m[1] !== undefined,
    name: m[2],
    text: m[3],
    line: markdown.slice(0, m.index).split("\n").length + 1,
  }));
}

/**
 * One bash script of a file's blocks, the expected status of each command
 * (by its script line range), and the problems found in the text itself.
 * curl reports each request's status on stderr, with the script line it was
 * called from; the sessions' `BASE=` line names `origin`.
 */
export function sessionScript(blocks, origin) {
  const prelude = [
    "set -euo pipefail",
    "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT", // a server the session started
    `curl() { command curl -sS -w "%{stderr}DOCS-STATUS \${BASH_LINENO[0]} %{http_code} %{method} %{url_effective}\\n" "$@"; }`,
  ];
  const lines = [...prelude];
  const expectations = [];
  const problems = [];
  for (const block of blocks) {
    const blockLines = block.text.replace(/\n$/, "").split("\n");
    if (!block.session) {
      if (block.name.includes('"') || blockLines.includes(FILE_END)) problems.push(`line ${block.line}: a file block this runner cannot save`);
      lines.push(`cat > "${block.name}" <<'${FILE_END}'`, ...blockLines, FILE_END);
      continue;
    }
    let start = null;
    blockLines.forEach((text, i) => {
      const scriptLine = lines.length + 1;
      start ??= scriptLine;
      if (BASE_LINE.test(text)) lines.push(text.replace(BASE_LINE, `BASE=${origin}`));
      else {
        if (SERVER_ADDRESS.test(text) || text.startsWith("BASE=")) {
          problems.push(`line ${block.line + i}: name the server as $BASE, set once at the top of the session as BASE=${DOCUMENTED_ORIGIN}`);
        }
        lines.push(text);
      }
      if (text.endsWith("\\")) return;
      const expected = EXPECTED.exec(text)?.[1];
      expectations.push({ from: start, to: scriptLine, expected: expected ? Number(expected) : null, docLine: block.line + i });
      start = null;
    });
  }
  return { script: `${lines.join("\n")}\n`, expectations, problems };
}

/** Problems with the statuses a run reported (`stderr`), given the commands' expectations. */
function statusProblems(stderr, expectations) {
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
  const blocks = runBlocks(markdown);
  const name = relative(ROOT, file);
  if (!blocks.some((block) => block.session)) return [];
  // No throw-away secrets: the sessions log in with .dev.vars's local accounts, as a reader would.
  return withLocalServer({ database: "seeded", throwawaySecrets: false }, async (server) => {
    // A scratch directory inside the repository: files a session writes
    // (ticket.png) land there, and `npm run` still finds the project.
    const scratch = join(ROOT, ".wrangler", "docs-sessions", name.replaceAll("/", "_"));
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const { script, expectations, problems: textProblems } = sessionScript(blocks, server.origin);
    writeFileSync(join(scratch, "session.sh"), script);
    const env = { ...process.env, RECEIVER_PORT: String(await freePort()) };
    const run = spawnSync("bash", ["session.sh"], { cwd: scratch, env, encoding: "utf8", timeout: 120_000 });
    // What the reader would have seen, for a look after a failure.
    writeFileSync(join(scratch, "session.out"), `${run.stdout ?? ""}${run.stderr ?? ""}`);
    const problems = [...textProblems, ...statusProblems(run.stderr ?? "", expectations)];
    if (run.status !== 0) {
      problems.push(`the session stopped (exit ${run.status ?? run.signal}):\n${(run.stderr ?? "").split("\n").filter((l) => !STATUS_LINE.test(l)).join("\n")}`);
    }
    const requests = (run.stderr ?? "").split("\n").filter((l) => STATUS_LINE.test(l)).length;
    log(`${name}: ${blocks.filter((block) => block.session).length} session block(s), ${requests} requests${problems.length ? "" : ", all as expected"}`);
    return problems.map((p) => `${name} ${p}`);
  });
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runMain(main, USAGE);
