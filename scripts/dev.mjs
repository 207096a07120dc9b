#!/usr/bin/env node
// `npm run dev`: everything a newcomer needs for a working local service.
//   1. creates .dev.vars from .dev.vars.example when missing (local accounts)
//   2. applies migrations/ to the local D1
//   3. loads the sample data (idempotent)
//   4. runs `wrangler dev --ip 127.0.0.1 --port 8787` until Ctrl-C
//
//   npm run dev -- --port 8788     another port; other arguments go to wrangler dev
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import {
  ROOT,
  UsageError,
  ensureDevVars,
  log,
  runMain,
  runWrangler,
  wranglerCommand,
} from "./lib/common.mjs";

const USAGE = `usage: npm run dev [-- [--ip <address>] [--port <port>] [--skip-seed] [other wrangler dev options]]`;

function takeOption(argv, name, fallback) {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i === -1) return fallback;
  const [arg] = argv.splice(i, 1);
  const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv.splice(i, 1)[0];
  if (!value) throw new UsageError(`--${name} needs a value`);
  return value;
}

async function main(argv) {
  const rest = [...argv];
  const ip = takeOption(rest, "ip", "127.0.0.1");
  const port = takeOption(rest, "port", "8787");
  const skipSeed = rest.includes("--skip-seed");
  const passThrough = rest.filter((a) => a !== "--skip-seed");

  const vars = ensureDevVars();

  log("==> applying migrations to the local D1");
  runWrangler(["d1", "migrations", "apply", "DB", "--local"]);

  if (!skipSeed) {
    log("==> loading the sample data");
    const seed = spawnSync(process.execPath, [join(ROOT, "scripts", "seed.mjs"), "--local"], {
      cwd: ROOT,
      stdio: "inherit",
    });
    if (seed.status !== 0) throw new Error("the seed failed");
  }

  const base = `http://${ip.includes(":") ? `[${ip}]` : ip}:${port}`;
  log(`==> starting wrangler dev on ${base}
    curl -u ${vars.LOCAL_ADMIN_NAME}:${vars.LOCAL_ADMIN_SECRET} ${base}/v1.1/special-events
    (local accounts: ${vars.LOCAL_ADMIN_NAME} (admin), ${vars.LOCAL_SALES_NAME} (sales)${
      vars.LOCAL_GATE_NAME ? `, ${vars.LOCAL_GATE_NAME} (gate)` : ", no gate account: copy LOCAL_GATE_* from .dev.vars.example"
    }; secrets in .dev.vars)`);

  // wrangler runs in its own process group so that the whole group (wrangler
  // and the workerd it starts, which can outlive it) is stopped together.
  // Being in a background group, it must not read the terminal: stdin is
  // ignored and wrangler's interactive hotkeys are off. Ctrl-C reaches this
  // process and is forwarded.
  const [cmd, args] = wranglerCommand([
    "dev",
    "--ip",
    ip,
    "--port",
    port,
    "--show-interactive-dev-session=false",
    ...passThrough,
  ]);
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });

  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch (error) {
      if (error.code !== "ESRCH") throw error;
    }
  };

  let stopping = 0;
  const stop = (signal) => {
    if (stopping) {
      // A second Ctrl-C kills at once. (npm forwards the terminal's SIGINT
      // too, so a duplicate within a second is the same Ctrl-C.)
      if (Date.now() - stopping > 1000) killGroup("SIGKILL");
      return;
    }
    stopping = Date.now();
    log(`\n==> ${signal}: stopping wrangler dev`);
    killGroup(signal);
    // Whatever is still running after 5 s is killed.
    setTimeout(() => killGroup("SIGKILL"), 5000).unref();
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(signal));

  const code = await new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
  });
  // wrangler is gone; make sure no workerd of its group lingers.
  killGroup("SIGTERM");
  process.exit(stopping ? 0 : code);
}

await runMain(main, USAGE);
