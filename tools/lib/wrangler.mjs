// Running wrangler from the scripts: its configuration through wrangler's own
// reader (unstable_readConfig), and its CLI (`d1 execute`, `d1 migrations
// apply`, `deploy --dry-run`) with this Node, no npx and no shell.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./cli.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const WRANGLER_CONFIG = join(ROOT, "wrangler.toml");

/**
 * The top-level [vars] of wrangler.toml, as wrangler reads them. wrangler is
 * imported only here, on demand: loading it takes a second and installs
 * signal handlers of its own, which `npm run dev` must not get.
 */
export async function museumVars() {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig({ config: WRANGLER_CONFIG }, { hideWarnings: true }).vars;
}

/** Path of wrangler's CLI entry point. */
function wranglerBin() {
  const require = createRequire(join(ROOT, "package.json"));
  const pkgPath = require.resolve("wrangler/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
  return join(dirname(pkgPath), typeof pkg.bin === "string" ? pkg.bin : pkg.bin.wrangler);
}

/** Environment for non-interactive wrangler runs. */
export function wranglerEnv(extra = {}) {
  return { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", ...extra };
}

/** `[command, args]` for `node <wrangler> ...args`. */
export function wranglerCommand(args) {
  return [process.execPath, [wranglerBin(), ...args]];
}

/**
 * Runs wrangler to completion (in `cwd`: another checkout for the bench). With
 * `capture`, stdout is returned (for `--json`); otherwise it goes to this
 * process's stdout. Throws on failure.
 */
export function runWrangler(args, { capture = false, cwd = ROOT } = {}) {
  const [cmd, argv] = wranglerCommand(args);
  const result = spawnSync(cmd, argv, {
    cwd,
    env: wranglerEnv(),
    stdio: ["ignore", capture ? "pipe" : "inherit", capture ? "pipe" : "inherit"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (capture) process.stderr.write(`${result.stderr ?? ""}${result.stdout ?? ""}`);
    throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed (exit ${result.status ?? result.signal})`);
  }
  return result.stdout ?? "";
}

/**
 * The D1 a script works on: local (default; `persistTo` for a state directory
 * of its own) or `remote`, with an optional wrangler environment (`env`).
 * Returns wrangler arguments and a human-readable label; a state directory
 * for the remote D1 is a usage error.
 */
export function d1Target({ remote = false, env, persistTo } = {}) {
  if (remote && persistTo) throw new UsageError("--persist-to is for the local D1 only");
  const args = [remote ? "--remote" : "--local"];
  if (env) args.push("--env", env);
  if (persistTo) args.push("--persist-to", persistTo);
  const where = remote ? "remote" : "local";
  return { args, label: `${where} D1 (${env ? `env ${env}` : remote ? "production" : "default env"})` };
}

/** Applies migrations/ to the target's D1; with `quiet`, returns wrangler's report instead of printing it. */
export function applyMigrations(target, { quiet = false } = {}) {
  return runWrangler(["d1", "migrations", "apply", "DB", ...target.args], { capture: quiet });
}

/**
 * The migrations a report of `wrangler d1 migrations apply` says it applied
 * (the names of its "Migrations to be applied" table); none when it had
 * nothing to apply.
 */
export function appliedMigrationNames(report) {
  const table = /Migrations to be applied:\n([\s\S]*?)\n[^│┌├└]/.exec(report)?.[1] ?? "";
  return [...table.matchAll(/│ (\S+\.sql)\s+│/g)].map((m) => m[1]);
}

/** One line for `appliedMigrationNames`: "applied 2 migrations: a.sql, b.sql"; null for none. */
export function migrationSummary(names) {
  if (names.length === 0) return null;
  const list = names.length <= 4 ? names.join(", ") : `${names[0]} … ${names.at(-1)}`;
  return `applied ${names.length} migration${names.length === 1 ? "" : "s"} to the local database: ${list}`;
}

/**
 * Executes SQL (`command` text, a `file`, or `sql`: a script of many
 * statements, handed over as a temporary file) with `wrangler d1 execute DB
 * --json` and returns the per-statement results (an array of row arrays).
 */
export function d1Execute(target, { command, file, sql }) {
  if (sql !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), "museum-sql-"));
    try {
      const script = join(dir, "script.sql");
      writeFileSync(script, sql);
      return d1Execute(target, { file: script });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
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
