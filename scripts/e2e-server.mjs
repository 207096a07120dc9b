// Shared by the end-to-end checks (scripts/e2e.mjs, scripts/docs-browser-test.mjs,
// scripts/lint-openapi.mjs): a throw-away local database, a local admin
// account, and `wrangler dev` on a free port in its own process group, which
// is always stopped as a whole (wrangler's workerd child can outlive it).
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, ROOT, runWrangler, wranglerCommand } from "./lib/common.mjs";

export { ROOT };
/** ../shared/reference, or wherever MUSEUM_REFERENCE_DIR points. */
export const REFERENCE_DIR = process.env.MUSEUM_REFERENCE_DIR ?? join(ROOT, "..", "shared", "reference");

/** `process.env.CI` as CI systems set it. */
export const IN_CI = ["true", "1"].includes(String(process.env.CI ?? "").toLowerCase());

export function log(message) {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

// Synchronous clean-ups run however the process ends: a normal exit, an
// uncaught error (both emit "exit"), or Ctrl-C / a kill. The signals are
// turned into an exit, so the same clean-ups run (wrangler's own process
// group does not receive a terminal's Ctrl-C, so it must be ended from here).
const cleanups = new Set();
let handlersInstalled = false;

/** Runs `fn` (synchronous) when the process ends, unless `cancel()` is called first. */
export function onProcessEnd(fn) {
  if (!handlersInstalled) {
    handlersInstalled = true;
    process.on("exit", () => {
      for (const cleanup of [...cleanups].reverse()) {
        try {
          cleanup();
        } catch {
          // best effort while exiting
        }
      }
    });
    for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]]) {
      process.once(signal, () => {
        log(`${signal}: cleaning up`);
        process.exit(code);
      });
    }
  }
  cleanups.add(fn);
  return { cancel: () => cleanups.delete(fn) };
}

/** A temporary directory, removed when the process ends (or by `remove()`). */
export function tempDir(prefix) {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(path, { recursive: true, force: true });
  const hook = onProcessEnd(remove);
  return {
    path,
    remove: () => {
      hook.cancel();
      remove();
    },
  };
}

/**
 * A fresh local D1 state in a temporary directory: every migration applied
 * and one admin account with a random secret (only its SHA-256 is stored).
 */
export function prepareLocalState({ accountName = "e2e-admin" } = {}) {
  const dir = tempDir("museum-e2e-state-");
  const persistTo = dir.path;
  runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], { capture: true });
  const secret = randomBytes(24).toString("base64url");
  const hash = createHash("sha256").update(secret, "utf8").digest("hex");
  runWrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    "--persist-to",
    persistTo,
    "--command",
    `INSERT INTO accounts (name, role, secret_sha256) VALUES ('${accountName}', 'admin', '${hash}')`,
  ], { capture: true });
  return {
    persistTo,
    admin: { name: accountName, secret },
    authorization: `Basic ${Buffer.from(`${accountName}:${secret}`, "utf8").toString("base64")}`,
    cleanup: dir.remove,
  };
}

/** Every process whose process group is `pgid` (read from /proc). */
export function processesInGroup(pgid) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") {
        const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        found.push({ pid: Number(entry), comm });
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if (error.code !== "ESRCH") throw error;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `wrangler dev` on a free port of 127.0.0.1, in its own process group,
 * and waits until `/healthz` answers 200 (`vars`: extra `--var KEY:VALUE`s).
 * Returns `{ origin, stop }`; `stop()`
 * ends the whole group (SIGTERM, then SIGKILL) and throws when any process of
 * it, workerd included, is still alive afterwards. A process exit handler
 * SIGKILLs the group should the caller never get to `stop()`.
 */
export async function startWranglerDev({ persistTo, port, vars = {}, timeoutMs = 90_000 } = {}) {
  port ??= await freePort();
  const [command, args] = wranglerCommand([
    "dev",
    "--port",
    String(port),
    "--ip",
    "127.0.0.1",
    "--log-level",
    "warn",
    "--show-interactive-dev-session=false",
    // A throw-away signing key for ticket QR payloads (the real one is a secret).
    "--var",
    `TICKET_SIGNING_KEY:${randomBytes(32).toString("hex")}`,
    // And for webhook secrets at rest; `vars` may add or override others.
    "--var",
    `WEBHOOK_SECRET_KEY:${randomBytes(32).toString("base64")}`,
    ...Object.entries(vars).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
    ...(persistTo ? ["--persist-to", persistTo] : []),
  ]);
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true, // its own process group, so the group can be ended as a whole
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", BROWSER: "none" },
  });
  const pgid = child.pid;
  let output = "";
  const collect = (chunk) => {
    output += chunk;
    if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  let exited = null;
  child.on("exit", (code, signal) => {
    exited = { code, signal };
  });

  // Whatever ends this script, the group goes with it.
  const exitHook = onProcessEnd(() => killGroup(pgid, "SIGKILL"));

  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    killGroup(pgid, "SIGTERM");
    for (let i = 0; i < 50 && processesInGroup(pgid).length > 0; i++) await sleep(100);
    const lingering = processesInGroup(pgid);
    if (lingering.length > 0) {
      log(`still running after SIGTERM, sending SIGKILL: ${lingering.map((p) => `${p.comm}(${p.pid})`).join(", ")}`);
      killGroup(pgid, "SIGKILL");
      for (let i = 0; i < 50 && processesInGroup(pgid).length > 0; i++) await sleep(100);
    }
    exitHook.cancel();
    const survivors = processesInGroup(pgid);
    if (survivors.length > 0) {
      throw new Error(`processes of wrangler dev survived: ${survivors.map((p) => `${p.comm}(${p.pid})`).join(", ")}`);
    }
    log(`wrangler dev (process group ${pgid}) stopped; no wrangler/workerd process of it is left`);
  }

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (exited) throw new Error(`wrangler dev exited early (${JSON.stringify(exited)}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`wrangler dev did not answer /healthz within ${timeoutMs} ms:\n${output}`);
      try {
        const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2_000) });
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  log(`wrangler dev is up at ${origin} (process group ${pgid})`);
  return { origin, pgid, stop, output: () => output };
}

/** Says whether the reference directory exists; outside CI a missing one is a skip. */
export function requireReference(what) {
  if (existsSync(join(REFERENCE_DIR, "museum-openapi-1.1.1.yaml"))) return true;
  const reason = `${REFERENCE_DIR} is absent (this clone is used outside the workspace that holds the Museum API reference description and Arazzo files)`;
  if (IN_CI) {
    console.error(`FAIL: ${what} cannot run: ${reason}. Under CI=true it must run, so this is an error.`);
    process.exit(1);
  }
  console.log(`SKIPPED: ${what}: ${reason}.`);
  return false;
}
