// `wrangler dev` for every tool that needs a running Worker: `npm run dev`,
// the lint, browser and end-to-end checks, and the bench.
//
// It runs wrangler's CLI as a child process rather than wrangler's
// programmatic `unstable_startWorker`: the bench measures the server's CPU
// apart from its own load generator, which needs the server in processes of
// its own; and `npm run dev` should behave exactly like `wrangler dev` (its
// .dev.vars handling, reload on source changes, its logs on the terminal).
//
// Portable (Linux, macOS): no process groups and no /proc. wrangler stops its
// workerd processes itself on SIGINT/SIGTERM; `stop()` waits for wrangler to
// exit (SIGKILL after a grace period) and then fails if anything still
// answers on the server's port, so a left-behind workerd is reported.
import { spawn } from "node:child_process";
import { onProcessEnd } from "./process-end.mjs";
import { freePort, isListening } from "./ports.mjs";
import { ROOT, WRANGLER_CONFIG, wranglerCommand, wranglerEnv } from "./wrangler.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function devArguments({ ip, port, persistTo, vars, envFile, script, inspectorPort, logLevel, extraArgs }) {
  return [
    "dev",
    // A prebuilt Worker (the bench): served as it is, src/ not watched.
    ...(script ? [script, "--no-bundle"] : []),
    // Named explicitly: with a script argument wrangler would not look for it.
    "--config", WRANGLER_CONFIG,
    "--ip", ip,
    "--port", String(port),
    "--show-interactive-dev-session=false",
    ...(logLevel ? ["--log-level", logLevel] : []),
    ...(persistTo ? ["--persist-to", persistTo] : []),
    ...(envFile ? ["--env-file", envFile] : []),
    ...(inspectorPort ? ["--inspector-port", String(inspectorPort)] : []),
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ...extraArgs,
  ];
}

/**
 * Starts `wrangler dev` and waits until `/healthz` answers: 200, or 503
 * `/problems/schema-behind` (a throw-away state without migrations is enough
 * for the tools that only read the OpenAPI document).
 *
 * Options: `ip` (127.0.0.1), `port` (a free one), `persistTo` (local state
 * directory; wrangler's default otherwise), `vars` (extra Worker variables),
 * `envFile` (instead of .dev.vars), `script` (a prebuilt Worker),
 * `inspectorPort`, `logLevel`, `extraArgs` (more `wrangler dev` arguments),
 * `inheritOutput` (wrangler's output on this terminal instead of collected),
 * `onOutput` (called with every chunk of wrangler's output, for a check that
 * reads all of it: `output()` keeps only the last 50,000 characters),
 * `extraEnv`, `timeoutMs`, `stopOnProcessEnd` (true: a script that ends
 * without `stop()`, by an error or a signal, asks wrangler to stop too;
 * `npm run dev` handles its signals itself).
 *
 * Returns `{ origin, port, pid, readyMs, output(), exited, stop() }`.
 */
export async function startWranglerDev(options = {}) {
  const { ip = "127.0.0.1", inheritOutput = false, onOutput, extraEnv = {}, timeoutMs = 90_000, stopOnProcessEnd = true } = options;
  const port = options.port ?? (await freePort());
  const [command, args] = wranglerCommand(
    devArguments({ vars: {}, extraArgs: [], ...options, ip, port }),
  );
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ["ignore", inheritOutput ? "inherit" : "pipe", inheritOutput ? "inherit" : "pipe"],
    env: wranglerEnv({ BROWSER: "none", ...extraEnv }),
  });
  let output = "";
  const collect = (chunk) => {
    output = (output + chunk).slice(-50_000);
    onOutput?.(String(chunk));
    if (process.env.WRANGLER_DEV_VERBOSE) process.stderr.write(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let exit = null;
  const exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve((exit = { code, signal })));
  });
  const hook = stopOnProcessEnd ? onProcessEnd(() => child.kill("SIGTERM")) : { cancel() {} };

  const host = ip.includes(":") ? `[${ip}]` : ip;
  const origin = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  let stopping;
  const stop = (signal = "SIGTERM") => (stopping ??= stopServer({ child, exited, port, hook, signal }));

  try {
    await waitForHealth(origin, () => exit, started + timeoutMs, () => output);
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  return { origin, port, pid: child.pid, readyMs: performance.now() - started, output: () => output, exited, stop };
}

async function waitForHealth(origin, exitOf, deadline, outputOf) {
  for (;;) {
    if (exitOf()) throw new Error(`wrangler dev exited early (${JSON.stringify(exitOf())}):\n${outputOf()}`);
    if (performance.now() > deadline) throw new Error(`wrangler dev did not answer ${origin}/healthz in time:\n${outputOf()}`);
    try {
      const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2_000) });
      const body = await res.text();
      if (res.status === 200 || (res.status === 503 && body.includes('"type":"/problems/schema-behind"'))) return;
    } catch {
      // not listening yet
    }
    await sleep(150);
  }
}

/** Signals wrangler, SIGKILLs it after 10 s, then checks that its port is free. */
async function stopServer({ child, exited, port, hook, signal }) {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(killer);
  hook.cancel();
  for (let i = 0; i < 30 && (await isListening(port)); i++) await sleep(100);
  if (await isListening(port)) {
    throw new Error(`wrangler dev exited, but something still listens on port ${port} (a workerd left behind?)`);
  }
}
