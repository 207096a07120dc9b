// Throw-away local state for the tools that run the Worker: a fresh local D1
// (empty, migrated, or with the sample data too) with the accounts a check
// needs, throw-away Worker secrets, and `wrangler dev` on it, so a check never
// touches the developer's `npm run dev` database or .dev.vars secrets.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { generateCodeKey } from "./code-keys.mjs";
import { basicAuthorization, insertAccountSql, newSecret } from "./accounts.mjs";
import { tempDir } from "./process-end.mjs";
import { ROOT, applyMigrations, d1Execute, d1Target } from "./wrangler.mjs";
import { startWranglerDev } from "./wrangler-dev.mjs";

/**
 * What the tools vary in `withLocalServer`.
 * @typedef {object} LocalServerOptions
 * @property {"empty" | "migrated" | "seeded"} [database] the local D1: "migrated" (default) has every
 *   migration; "seeded" the sample data too (scripts/seed.mjs, which also creates .dev.vars's local
 *   accounts); "empty" nothing, enough to read the OpenAPI documents (/healthz answers schema-behind)
 * @property {Record<string, string>} [accounts] accounts to create, name → role, each with a random secret
 * @property {string} [sql] more SQL run with the accounts' inserts, in the same wrangler call (each costs seconds)
 * @property {boolean} [throwawaySecrets] true (default): the Worker's secrets are throw-away `--var`s;
 *   false: plain `wrangler dev`, every setting from wrangler.toml and .dev.vars
 * @property {string} [logLevel] wrangler's `--log-level` ("warn" by default: no line per request)
 * @property {boolean} [inheritOutput] wrangler's output on this terminal instead of collected
 * @property {(chunk: string) => void} [onOutput] called with every chunk of wrangler's output
 * @property {(error: Error) => void} [onStopFailure] called when the server does not stop cleanly
 *   (a workerd left behind), instead of failing the run with it
 */

/**
 * @typedef {object} LocalState
 * @property {string} persistTo the state directory (`--persist-to`)
 * @property {Record<string, { name: string, role: string, secret: string, authorization: string }>} accounts by name
 */

/**
 * A fresh local D1 in a temporary directory (removed by `cleanup()` or when
 * the process ends), as `database`, `accounts` and `sql` of LocalServerOptions say.
 * @param {Pick<LocalServerOptions, "database" | "accounts" | "sql">} options
 * @returns {LocalState & { cleanup: () => void }}
 */
function prepareLocalState({ database = "migrated", accounts = {}, sql = "" }) {
  const dir = tempDir("museum-local-state-");
  const target = d1Target({ persistTo: dir.path });
  const created = Object.fromEntries(
    Object.entries(accounts).map(([name, role]) => {
      const secret = newSecret();
      return [name, { name, role, secret, authorization: basicAuthorization(name, secret) }];
    }),
  );
  const inserts = [...Object.values(created).map(insertAccountSql), sql].filter(Boolean);
  if (database === "empty") {
    if (inserts.length > 0) throw new Error('accounts and SQL need a migrated database, not "empty"');
  } else {
    applyMigrations(target, { quiet: true });
    if (database === "seeded") {
      const seed = spawnSync(process.execPath, [join(ROOT, "scripts", "seed.mjs"), "--local", "--quiet", "--persist-to", dir.path], { cwd: ROOT, stdio: "inherit" });
      if (seed.status !== 0) throw new Error("the seed failed");
    }
    // One wrangler call for all of them.
    if (inserts.length > 0) d1Execute(target, { command: inserts.join("\n") });
  }
  return { persistTo: dir.path, accounts: created, cleanup: dir.remove };
}

/** Throw-away values for the Worker's secrets (`startWranglerDev({ vars })`); the real ones are Worker secrets. */
export function throwawaySecrets() {
  return {
    TICKET_SIGNING_KEY: randomBytes(32).toString("hex"),
    TICKET_CODE_KEYS: JSON.stringify({ keys: [generateCodeKey("E2E", Date.now() - 60_000)] }),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
  };
}

/**
 * Prepares a fresh local state, starts `wrangler dev` on it (a free port of
 * 127.0.0.1), runs `work(server, state)` and returns what it returns. The
 * server is stopped and the state removed whatever happens: after `work`,
 * when it throws, and on Ctrl-C or a kill (startWranglerDev's and tempDir's
 * process-end hooks). `server` is startWranglerDev's (`origin`, `exited`, …).
 * @template T
 * @param {LocalServerOptions} options
 * @param {(server: Awaited<ReturnType<typeof startWranglerDev>>, state: LocalState) => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function withLocalServer(options, work) {
  const { database, accounts, sql, throwawaySecrets: secrets = true, logLevel = "warn", inheritOutput, onOutput, onStopFailure } = options;
  const { cleanup, ...state } = prepareLocalState({ database, accounts, sql });
  let server;
  let failure;
  try {
    server = await startWranglerDev({ persistTo: state.persistTo, logLevel, vars: secrets ? throwawaySecrets() : {}, inheritOutput, onOutput });
    return await work(server, state);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    try {
      await server?.stop();
    } catch (error) {
      // The work's own failure says more than a stop that failed after it.
      if (onStopFailure) onStopFailure(error);
      else if (failure) console.error(`stopping wrangler dev: ${error.message}`);
      else throw error;
    } finally {
      cleanup();
    }
  }
}
