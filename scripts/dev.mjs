#!/usr/bin/env node
// `npm run dev`: everything a newcomer needs for a working local service.
//   1. creates .dev.vars from .dev.vars.example when missing (local accounts)
//   2. applies migrations/ to the local D1
//   3. loads the sample data (idempotent)
//   4. runs `wrangler dev` on 127.0.0.1:8787 until Ctrl-C
//
//   npm run dev -- --port 8788               another port
//   npm run dev -- -- --log-level debug      arguments after `--` go to wrangler dev
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";
import { ROOT, applyMigrations, d1Target } from "../tools/lib/wrangler.mjs";

const USAGE = `usage: npm run dev [-- [--ip <address>] [--port <port>] [--skip-seed] [-- <wrangler dev options>]]`;

/** The names under wrangler.toml's top-level [vars]: plain settings .dev.vars may override. */
function plainVarNames() {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const section = /^\[vars\]\s*$([\s\S]*?)^\[/m.exec(toml)?.[1] ?? "";
  return new Set([...section.matchAll(/^\s*([A-Z0-9_]+)\s*=/gm)].map((m) => m[1]));
}

/**
 * `--var KEY:VALUE` for each .dev.vars entry that overrides a plain [vars]
 * setting (e.g. WEBHOOK_ALLOW_LOOPBACK): with `[secrets] required` in the
 * config, wrangler dev reads only the listed secrets from .dev.vars.
 */
function localVarOverrides(vars) {
  const names = plainVarNames();
  return Object.entries(vars)
    .filter(([key]) => names.has(key))
    .flatMap(([key, value]) => ["--var", `${key}:${value}`]);
}

/**
 * The .dev.vars entries meant for the Worker: all but the seed's LOCAL_*
 * accounts. They go to wrangler dev as `--var`, because with `[secrets]
 * required` in the config wrangler itself reads only the listed secrets from
 * .dev.vars, and local plain settings such as WEBHOOK_ALLOW_LOOPBACK would
 * never reach the Worker.
 */
function workerSettings(devVars) {
  return Object.fromEntries(Object.entries(devVars).filter(([name]) => !name.startsWith("LOCAL_")));
}

async function main(argv) {
  const { values: args, positionals: wranglerArgs } = parseCommandLine(argv, {
    ip: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8787" },
    "skip-seed": { type: "boolean" },
  });
  const vars = ensureDevVars();

  log("==> applying migrations to the local D1");
  applyMigrations(d1Target());

  if (!args["skip-seed"]) {
    log("==> loading the sample data");
    const seed = spawnSync(process.execPath, [join(ROOT, "scripts", "seed.mjs"), "--local"], { cwd: ROOT, stdio: "inherit" });
    if (seed.status !== 0) throw new Error("the seed failed");
  }

  log(`==> starting wrangler dev on ${args.ip}:${args.port}`);
  // A terminal's Ctrl-C reaches wrangler directly (same foreground process
  // group) and wrangler stops its workerd; this process waits for that.
  let stopping = false;
  let server;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log(`\n==> ${signal}: stopping wrangler dev`);
      server?.stop(signal).then(
        () => process.exit(0),
        (error) => {
          log(`error: ${error.message}`);
          process.exit(1);
        },
      );
    });
  }
  try {
    server = await startWranglerDev({
      ip: args.ip,
      port: Number(args.port),
      vars: workerSettings(vars),
      inheritOutput: true,
      extraArgs: wranglerArgs,
      stopOnProcessEnd: false,
    });
  } catch (error) {
    if (stopping) process.exit(0); // Ctrl-C while it started
    throw error;
  }
  log(`==> ready: ${server.origin}
    curl -u ${vars.LOCAL_ADMIN_NAME}:${vars.LOCAL_ADMIN_SECRET} ${server.origin}/v1.1/special-events
    (local accounts: ${vars.LOCAL_ADMIN_NAME} (admin), ${vars.LOCAL_SALES_NAME} (sales)${
      vars.LOCAL_GATE_NAME ? `, ${vars.LOCAL_GATE_NAME} (gate)` : ", no gate account: copy LOCAL_GATE_* from .dev.vars.example"
    }; secrets in .dev.vars)`);
  const { code, signal } = await server.exited;
  if (!stopping) {
    log(`==> wrangler dev exited (${code ?? signal})`);
    process.exit(code ?? 1);
  }
}

await runMain(main, USAGE);
