// Redocly's CLI (lint, respect) run with this Node, without telemetry.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { onProcessEnd } from "./process-end.mjs";
import { ROOT } from "./wrangler.mjs";

const REDOCLY = join(ROOT, "node_modules", "@redocly", "cli", "bin", "cli.js");

/**
 * Runs `redocly <args>` in `cwd`; resolves to `{ status, output }`. With
 * `inheritOutput` its output goes to this terminal instead of `output`.
 */
export function runRedocly(args, { cwd, inheritOutput = false, timeoutMs = 300_000, extraEnv = {} }) {
  const child = spawn(process.execPath, [REDOCLY, ...args], {
    cwd,
    stdio: ["ignore", inheritOutput ? "inherit" : "pipe", inheritOutput ? "inherit" : "pipe"],
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", ...extraEnv },
  });
  const hook = onProcessEnd(() => child.kill("SIGKILL"));
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      hook.cancel();
      resolve({ status: code ?? 1, output });
    });
  });
}
