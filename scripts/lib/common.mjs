// Helpers shared by the operator scripts (seed, dev, account). Plain Node ESM,
// no dependencies beyond wrangler itself.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:net";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DEV_VARS = join(ROOT, ".dev.vars");
export const DEV_VARS_EXAMPLE = join(ROOT, ".dev.vars.example");

/** Account names: what accounts.name accepts and what Basic auth can carry (no ':'). */
export const ACCOUNT_NAME = /^[a-z0-9._-]{1,64}$/;
export const ACCOUNT_ROLES = ["admin", "sales", "gate"];

export class UsageError extends Error {}

/** Lower-case hex SHA-256 of a UTF-8 string, as src/lib/crypto.ts computes it. */
export function sha256Hex(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * A SQL string literal. Quotes are doubled; NUL is refused because SQLite
 * would end the string there. Every value that reaches SQL text goes through
 * this or `sqlInteger`.
 */
export function sqlString(value) {
  if (typeof value !== "string") throw new TypeError(`not a string: ${String(value)}`);
  if (value.includes("\0")) throw new UsageError("NUL characters are not allowed");
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlInteger(value) {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${String(value)}`);
  return String(value);
}

/** Parses a dotenv-style file: KEY=VALUE lines, `#` comments, optional quotes. */
export function parseDotEnv(text) {
  const vars = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2];
    const quoted = /^(['"])(.*)\1$/.exec(value);
    value = quoted ? quoted[2] : value.replace(/\s+#.*$/, "");
    vars[match[1]] = value;
  }
  return vars;
}

/** Creates .dev.vars from .dev.vars.example when it is missing; returns its variables. */
export function ensureDevVars() {
  if (!existsSync(DEV_VARS)) {
    copyFileSync(DEV_VARS_EXAMPLE, DEV_VARS);
    log(`created .dev.vars from .dev.vars.example (local-only credentials, never deployed)`);
  }
  return parseDotEnv(readFileSync(DEV_VARS, "utf8"));
}

/** The museum's time zone as configured in wrangler.toml (top-level [vars]). */
export function museumTimeZone() {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  return /^\s*MUSEUM_TIMEZONE\s*=\s*"([^"]+)"/m.exec(toml)?.[1] ?? "America/New_York";
}

/** Today's date (YYYY-MM-DD) in an IANA time zone. */
export function todayIn(timeZone) {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
    new Date(),
  );
}

export function log(message) {
  process.stderr.write(`${message}\n`);
}

/** Path of wrangler's CLI entry point, run with this Node (no npx, no shell). */
function wranglerBin() {
  const require = createRequire(join(ROOT, "package.json"));
  const pkgPath = require.resolve("wrangler/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin.wrangler;
  return join(dirname(pkgPath), bin);
}

/** Environment for non-interactive wrangler runs. */
export function wranglerEnv(extra = {}) {
  return { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", ...extra };
}

/** Arguments for `node <wrangler> ...args`. */
export function wranglerCommand(args) {
  return [process.execPath, [wranglerBin(), ...args]];
}

/**
 * Runs wrangler to completion. With `capture`, stdout is returned (for
 * `--json`); otherwise it goes to this process's stdout. Throws on failure.
 */
export function runWrangler(args, { capture = false } = {}) {
  const [cmd, argv] = wranglerCommand(args);
  const result = spawnSync(cmd, argv, {
    cwd: ROOT,
    env: wranglerEnv(),
    stdio: ["ignore", capture ? "pipe" : "inherit", capture ? "pipe" : "inherit"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (capture) {
      process.stderr.write(result.stderr ?? "");
      process.stderr.write(result.stdout ?? "");
    }
    throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed (exit ${result.status ?? result.signal})`);
  }
  return result.stdout ?? "";
}

/**
 * The D1 target of a script: `--local` (default) or `--remote`, with an
 * optional `--env <name>` (for example `staging`). Returns wrangler arguments
 * and a human-readable label.
 */
export function d1Target({ remote, env }) {
  const args = [remote ? "--remote" : "--local"];
  if (env) args.push("--env", env);
  const where = remote ? "remote" : "local";
  return { args, label: `${where} D1 (${env ? `env ${env}` : remote ? "production" : "default env"})` };
}

/**
 * Executes SQL with `wrangler d1 execute DB --json` and returns the per-statement
 * results (an array of row arrays) when wrangler reports them.
 */
export function d1Execute(target, { command, file }) {
  const args = ["d1", "execute", "DB", ...target.args, "--json", "--yes"];
  if (command !== undefined) args.push("--command", command);
  if (file !== undefined) args.push("--file", file);
  const out = runWrangler(args, { capture: true });
  let parsed;
  try {
    parsed = JSON.parse(out);
  } catch {
    throw new Error(`unexpected output from wrangler d1 execute:\n${out}`);
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.map((statement) => (Array.isArray(statement?.results) ? statement.results : []));
}

/** Reads `--flag`, `--flag value` and positional arguments. */
export function parseArgs(argv, { flags = [], options = [] }) {
  const out = { _: [], flags: new Set(), options: {} };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
      if (flags.includes(name) && inline === undefined) {
        out.flags.add(name);
      } else if (options.includes(name)) {
        const value = inline ?? argv[++i];
        if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
        out.options[name] = value;
      } else {
        throw new UsageError(`unknown option ${arg}`);
      }
    } else {
      out._.push(arg);
    }
  }
  return out;
}

/** Runs `main`, printing usage errors briefly and other errors with their message. */
export async function runMain(main, usage) {
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      log(`error: ${error.message}\n\n${usage}`);
      process.exit(2);
    }
    log(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

/** A TCP port that nobody listens on right now (127.0.0.1). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
