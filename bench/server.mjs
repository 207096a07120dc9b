// `wrangler dev` for the benchmark (started by tools/lib/wrangler-dev.mjs, as
// for every other tool), and the CPU time and memory of its processes, read
// from /proc: the bench's meter is Linux-only (said so in its --help).
// `stop()` also verifies, from /proc, that no process of the server survives.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { freePort } from "../tools/lib/ports.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";
import { ROOT, WRANGLER_CONFIG } from "../tools/lib/wrangler.mjs";
import { Inspector } from "./inspector.mjs";

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ): 100 on Linux. */
const CLK_TCK = 100;

/** { pid, ppid, pgrp, comm, cpuTicks } of a process, or null when it is gone. */
function readStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may contain spaces: split after the last ')'.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const f = text.slice(close + 2).split(" ");
    // f[0] = state (field 3); utime = field 14, stime = field 15.
    return { pid, state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), comm, cpuTicks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

function readRssKb(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function readCmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** CPU seconds the whole machine has spent busy (all cores, /proc/stat), for telling other load apart. */
export function machineBusySeconds() {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: everything but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = cpu;
  return (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK;
}

/** Process `root` and all its descendants, read from /proc. */
export function processTree(root) {
  const all = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    // A zombie has exited already; it only waits for its parent to reap it.
    if (stat && stat.state !== "Z") all.push(stat);
  }
  const members = new Map(all.filter((p) => p.pid === root).map((p) => [p.pid, p]));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!members.has(p.pid) && members.has(p.ppid)) {
        members.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...members.values()];
}

/**
 * Writes to `path` a copy of wrangler.toml without its Queue consumers (bench
 * only; the deployed config is untouched): the producer binding stays, so a
 * request's own Queue send is measured while no delivery runs in the metered
 * process. Its relative paths are made absolute, as the copy lives elsewhere.
 */
export function writeConfigWithoutQueueConsumers(path) {
  // Each [[…queues.consumers]] table runs to the next blank line.
  const stripped = readFileSync(WRANGLER_CONFIG, "utf8").replace(/^\[\[(?:env\.[\w-]+\.)?queues\.consumers\]\]\n(?:.+\n)*/gm, "");
  if (/^\s*\[\[.*queues\.consumers/m.test(stripped)) throw new Error("wrangler.toml: a [[queues.consumers]] table was not removed");
  if (!/^\[\[queues\.producers\]\]/m.test(stripped)) throw new Error("wrangler.toml has no [[queues.producers]] table");
  const absolute = stripped.replace(
    /^(\s*(?:main|directory|migrations_dir)\s*=\s*)"([^"]+)"/gm,
    (_, key, relative) => `${key}${JSON.stringify(resolve(ROOT, relative))}`,
  );
  writeFileSync(path, absolute);
  return path;
}

export class WranglerDev {
  /**
   * @param {object} o
   * @param {string} o.script   the built Worker (from `wrangler deploy --dry-run --outdir`)
   * @param {string} o.persistTo
   * @param {string} o.envFile  a dotenv file with the Worker's secrets (replaces .dev.vars)
   * @param {string} [o.logPath] where wrangler writes its debug log (WRANGLER_LOG_PATH); it
   *   logs every DevTools event of the Worker there, megabytes per bench run
   * @param {boolean} [o.attachInspector] keep a DevTools client attached from the start (see
   *   inspector.mjs): no unbounded event buffer in wrangler's proxy, and the Worker's heap can
   *   be read; costs CPU per request (every event then travels to the client)
   * @param {Record<string, string>} [o.vars] Worker variables (`wrangler dev --var`)
   */
  constructor({ script, persistTo, envFile, logPath, attachInspector = false, vars = {} }) {
    Object.assign(this, { script, persistTo, envFile, logPath, attachInspector, vars });
  }

  async start({ timeoutMs = 60_000 } = {}) {
    this.inspectorPort = await freePort();
    this.server = await startWranglerDev({
      // The script is already bundled: wrangler serves it as it is and does
      // not watch src/, so edits made during a run cannot reload the Worker.
      script: this.script,
      persistTo: this.persistTo,
      envFile: this.envFile,
      vars: this.vars,
      logLevel: "warn",
      // DevTools for the Worker's isolate (its JS heap, sampled by the soak).
      inspectorPort: this.inspectorPort,
      extraEnv: this.logPath ? { WRANGLER_LOG_PATH: this.logPath } : {},
      timeoutMs,
    });
    this.port = this.server.port;
    this.base = this.server.origin;
    this.root = this.server.pid;
    this.readyMs = this.server.readyMs;
    // Drains wrangler's DevTools event buffer from now on (see inspector.mjs).
    if (!this.attachInspector) return this;
    try {
      this.inspector = await Inspector.connect(this.inspectorPort);
    } catch (error) {
      // Not fatal: the soak then runs without heap samples.
      process.stderr.write(`    (could not attach to wrangler dev's inspector: ${error.message})\n`);
    }
    return this;
  }

  /**
   * The processes of this server by role: `proxy` is the workerd that runs
   * wrangler's dev proxy (it listens on our port), `runtime` the workerd that
   * runs the Worker and its local D1, `wrangler` the Node process(es).
   */
  processes() {
    const out = { runtime: [], proxy: [], wrangler: [], other: [] };
    for (const p of processTree(this.root)) {
      if (p.comm === "workerd") {
        const listensOnOurPort = readCmdline(p.pid).some((a) => a.includes(`entry=127.0.0.1:${this.port}`));
        (listensOnOurPort ? out.proxy : out.runtime).push(p);
      } else if (p.comm === "node" || p.comm.startsWith("node")) {
        out.wrangler.push(p);
      } else {
        out.other.push(p);
      }
    }
    return out;
  }

  /** CPU seconds used so far, by role (see processes()). */
  cpuSeconds() {
    const procs = this.processes();
    const sum = (list) => list.reduce((s, p) => s + p.cpuTicks, 0) / CLK_TCK;
    return {
      runtime: sum(procs.runtime),
      proxy: sum(procs.proxy),
      wrangler: sum(procs.wrangler) + sum(procs.other),
    };
  }

  /** Resident memory in MiB, by role. */
  rssMiB() {
    const procs = this.processes();
    const sum = (list) => list.reduce((s, p) => s + readRssKb(p.pid), 0) / 1024;
    return { runtime: sum(procs.runtime), proxy: sum(procs.proxy), wrangler: sum(procs.wrangler) };
  }

  /** Stops the server; throws if any process of it survives. */
  async stop() {
    this.inspector?.close();
    this.inspector = undefined;
    if (!this.server) return;
    const tree = processTree(this.root).map((p) => p.pid);
    await this.server.stop();
    this.server = undefined;
    // A helper of wrangler's (its esbuild service) may take a moment longer to exit on a busy machine.
    let left = [];
    for (let waited = 0; waited <= 3_000; waited += 100) {
      left = tree.map(readStat).filter((p) => p && p.state !== "Z");
      if (left.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (left.length > 0) throw new Error(`processes of wrangler dev survived: ${left.map((p) => `${p.pid} ${p.comm}`).join(", ")}`);
  }
}
