#!/usr/bin/env node
// The npm scripts that are more than one command: package.json runs them as
// `node scripts/steps.mjs <script>`. npm hands the arguments after `--` to
// the last command of a script only, and runs a `pre<script>` with none, so
// `npm test -- --help` used to run the whole suite and `npm run bench --
// --help` an install. Here `--help` prints the script's usage before any
// command runs; otherwise the commands run in order, from the repository
// root, stopping at the first that fails, the arguments going to the last
// one, as npm ran them.
import { spawn, spawnSync } from "node:child_process";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError, asksForHelp, runMain } from "../tools/lib/cli.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";

/** Swagger UI's files for /docs (public/docs), before anything serves or bundles the Worker. */
const DOCS_ASSETS = ["node", "scripts/docs-assets.mjs"];
/** A package's pinned dependencies, installed on demand where the project's `npm ci` does not. */
const install = (dir) => ["npm", "ci", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];

/**
 * Each script's commands and its usage; a script without a usage of its own
 * shows its last command's (`--help` of a script that answers it alone).
 */
export const SCRIPTS = {
  dev: { commands: [DOCS_ASSETS, ["node", "scripts/dev.mjs"]] },
  test: {
    usage: `usage: npm test
The whole suite (about 10 minutes): the Worker's tests inside workerd against a real D1
(vitest), then the Node tests of the scripts (test/tools). One file at a time:
npx vitest run test/<dir>/<file>.test.ts, or node --test test/tools/<file>.`,
    commands: [DOCS_ASSETS, ["vitest", "run"], ["node", "--test", "test/tools/"]],
  },
  "test:tools": {
    usage: `usage: npm run test:tools
The Node tests of the scripts, the bench and the typed client's consumers (test/tools).`,
    commands: [["node", "--test", "test/tools/"]],
  },
  typecheck: {
    usage: `usage: npm run typecheck
worker-configuration.d.ts is what \`npm run types\` generates from wrangler.toml, and
TypeScript (strict) passes on the whole project.`,
    commands: [["node", "scripts/types.mjs", "--check"], ["tsc", "--noEmit"]],
  },
  "build:check": {
    commands: [DOCS_ASSETS, ["wrangler", "deploy", "--dry-run", "--outdir", "dist"], ["node", "scripts/check-bundle.mjs"]],
  },
  "client:generate": {
    commands: [install("clients/typescript/generator"), ["node", "clients/typescript/generator/generate.mjs"]],
  },
  "client:check": {
    usage: `usage: npm run client:check
The committed client types (clients/typescript/src/schema.d.ts) are openapi-typescript's
output for the committed snapshot (clients/typescript/openapi.json); docs/client.md.`,
    commands: [install("clients/typescript/generator"), ["node", "--test", "clients/typescript/generator/"]],
  },
  bench: { commands: [install("bench"), ["node", "bench/run.mjs"]] },
  "lint:unused": {
    usage: `usage: npm run lint:unused
No unused file, export or dependency (knip, knip.jsonc): first in what is deployed (the
Worker alone: an export only tests use is tagged @internal), then in the whole repository
(tests, scripts, tools/lib, the bench and the typed client, each package a workspace).`,
    commands: [["knip", "--production"], ["knip"]],
  },
  "db:migrate:local": {
    usage: `usage: npm run db:migrate:local
Applies migrations/ to the local D1 (.wrangler/state), as npm run dev does first.`,
    commands: [["wrangler", "d1", "migrations", "apply", "DB", "--local"]],
  },
  deploy: {
    usage: `usage: npm run deploy
The production Worker: its remote D1 migrations, then wrangler deploy (docs/operations.md;
npm run preflight first).`,
    commands: [DOCS_ASSETS, ["wrangler", "d1", "migrations", "apply", "DB", "--remote"], ["wrangler", "deploy"]],
  },
  "deploy:staging": {
    usage: `usage: npm run deploy:staging
The staging environment: its remote D1 migrations, wrangler deploy --env staging, then the
sample events (docs/operations.md).`,
    commands: [
      DOCS_ASSETS,
      ["wrangler", "d1", "migrations", "apply", "DB", "--remote", "--env", "staging"],
      ["wrangler", "deploy", "--env", "staging"],
      ["node", "scripts/seed.mjs", "--remote", "--env", "staging"],
    ],
  },
};

const USAGE = `usage: node scripts/steps.mjs <script> [<arguments for its last command>]
Runs one of package.json's scripts of several commands (npm run <script>): ${Object.keys(SCRIPTS).join(", ")}.`;

// Commands of node_modules/.bin resolve as under npm run; a script run by
// npm reads paths relative to where npm was run (INIT_CWD), not to the root.
const ENV = {
  ...process.env,
  PATH: [join(ROOT, "node_modules", ".bin"), process.env.PATH].join(delimiter),
  INIT_CWD: process.env.INIT_CWD ?? process.cwd(),
};

const executable = (command) => (command === "node" ? process.execPath : command);

/** The usage of a script, and the commands it runs. */
function usageOf(name, script, args) {
  let usage = script.usage;
  if (usage === undefined) {
    const [command, ...rest] = script.commands.at(-1);
    const help = spawnSync(executable(command), [...rest, ...args], { cwd: ROOT, env: ENV, encoding: "utf8" });
    if (help.status !== 0) throw new Error(`${[command, ...rest].join(" ")} --help failed (exit ${help.status ?? help.signal}):\n${help.stderr}`);
    usage = help.stdout;
  }
  const commands = script.commands.map((command, i) => `  ${command.join(" ")}${i === script.commands.length - 1 ? " [arguments after --]" : ""}`);
  return `${usage.trimEnd()}\nnpm run ${name} runs, from the repository root, stopping at the first that fails:\n${commands.join("\n")}\n`;
}

/** Runs one command to its end; resolves with its exit code or the signal that ended it. */
function run([command, ...args]) {
  return new Promise((resolve, reject) => {
    const child = spawn(executable(command), args, { cwd: ROOT, env: ENV, stdio: "inherit" });
    // Ctrl-C reaches the command from the terminal itself: wait for it to
    // stop. A signal sent to this process alone is passed on.
    const handlers = { SIGINT: () => {}, SIGTERM: () => child.kill("SIGTERM"), SIGHUP: () => child.kill("SIGHUP") };
    for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
    const done = () => {
      for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
    };
    child.on("error", (error) => {
      done();
      reject(new Error(`${command}: ${error.message}`));
    });
    child.on("exit", (code, signal) => {
      done();
      resolve({ code, signal });
    });
  });
}

async function main([name, ...args]) {
  if (asksForHelp([name ?? ""])) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (name === undefined) throw new UsageError("which script?");
  if (!Object.hasOwn(SCRIPTS, name)) throw new UsageError(`${name} is not one of them`);
  const script = SCRIPTS[name];
  if (asksForHelp(args)) {
    process.stdout.write(usageOf(name, script, args));
    return;
  }
  for (const [i, command] of script.commands.entries()) {
    const { code, signal } = await run(i === script.commands.length - 1 ? [...command, ...args] : command);
    if (signal) process.kill(process.pid, signal);
    if (code !== 0) process.exit(code);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runMain(main, USAGE, { ownHelp: true });
