#!/usr/bin/env node
// `npm run dev`: everything a newcomer needs for a working local service.
//   1. creates .dev.vars from .dev.vars.example when missing (local accounts)
//   2. applies migrations/ to the local D1 (one line naming those applied, if any)
//   3. loads the sample data (idempotent; silent unless something is written)
//   4. runs `wrangler dev` on 127.0.0.1:8787 until Ctrl-C: the Worker sees
//      exactly what plain `npx wrangler dev` gives it (wrangler.toml and .dev.vars)
//
//   npm run dev -- --port 8788               another port
//   npm run dev -- -- --log-level debug      arguments after `--` go to wrangler dev
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { isListening } from "../tools/lib/ports.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";
import { ROOT, appliedMigrationNames, applyMigrations, d1Target, migrationSummary } from "../tools/lib/wrangler.mjs";

const USAGE = `usage: npm run dev [-- [--ip <address>] [--port <port>] [--skip-seed] [-- <wrangler dev options>]]`;

// The local accounts .dev.vars.example defines, by the prefix of their variables, and their roles.
const LOCAL_ROLES = [
  ["LOCAL_ADMIN", "admin"],
  ["LOCAL_SALES", "sales"],
  ["LOCAL_KIOSK", "sales"],
  ["LOCAL_BOX_OFFICE", "box-office"],
  ["LOCAL_GATE", "gate"],
  ["LOCAL_RESELLER", "sales, OCTO reseller"],
];

async function main(argv) {
  const { values: args, positionals: wranglerArgs } = parseCommandLine(argv, {
    ip: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8787" },
    "skip-seed": { type: "boolean" },
  });
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError("--port must be a TCP port number (1–65535)");
  if (await isListening(port, args.ip === "0.0.0.0" ? "127.0.0.1" : args.ip)) {
    throw new UsageError(`port ${port} is in use (another wrangler dev?): stop it, or choose another with npm run dev -- --port <port>`);
  }
  const vars = ensureDevVars();

  // wrangler's report draws the tables twice per migration (400 lines on a
  // fresh database); a failure prints it whole (runWrangler).
  const applied = migrationSummary(appliedMigrationNames(applyMigrations(d1Target(), { quiet: true })));
  if (applied) log(applied);

  if (!args["skip-seed"]) {
    const seed = spawnSync(process.execPath, [join(ROOT, "scripts", "seed.mjs"), "--local", "--quiet"], { cwd: ROOT, stdio: "inherit" });
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
      port,
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
    (local accounts: ${LOCAL_ROLES.filter(([prefix]) => vars[`${prefix}_NAME`])
      .map(([prefix, role]) => `${vars[`${prefix}_NAME`]} (${role})`)
      .join(", ")}; secrets in .dev.vars)${
      vars.LOCAL_OCTO_KEY ? `
    curl -H 'Authorization: Bearer ${vars.LOCAL_OCTO_KEY}' ${server.origin}/octo/products   (LOCAL_OCTO_KEY)` : ""
    }`);
  const { code, signal } = await server.exited;
  if (!stopping) {
    log(`==> wrangler dev exited (${code ?? signal})`);
    process.exit(code ?? 1);
  }
}

await runMain(main, USAGE);
