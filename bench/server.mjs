// Starts and stops `wrangler dev` for the benchmark, and reads the CPU time and
// memory of its processes from /proc.
//
// wrangler runs in its own process group (spawn `detached`), so that stopping
// the group stops wrangler and the two workerd processes it starts (they can
// outlive wrangler). `stop()` verifies that nothing of the group survives.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, ROOT, wranglerCommand, wranglerEnv } from "../scripts/lib/common.mjs";
import { Inspector } from "./inspector.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** Every process in process group `pgid`, plus any descendant that left it. */
export function groupProcesses(pgid) {
  const all = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    // A zombie has exited already; it only waits for its parent to reap it.
    if (stat && stat.state !== "Z") all.push(stat);
  }
  const members = new Map(all.filter((p) => p.pgrp === pgid).map((p) => [p.pid, p]));
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
   */
  constructor({ script, persistTo, envFile, logPath, attachInspector = false }) {
    Object.assign(this, { script, persistTo, envFile, logPath, attachInspector });
    this.output = "";
  }

  async start({ timeoutMs = 60_000 } = {}) {
    this.port = await freePort();
    this.inspectorPort = await freePort();
    this.base = `http://127.0.0.1:${this.port}`;
    const [cmd, args] = wranglerCommand([
      "dev",
      this.script,
      "--config",
      join(ROOT, "wrangler.toml"),
      // The script is already bundled: wrangler serves it as it is and does
      // not watch src/, so edits made during a run cannot reload the Worker.
      "--no-bundle",
      "--ip",
      "127.0.0.1",
      "--port",
      String(this.port),
      "--persist-to",
      this.persistTo,
      "--env-file",
      this.envFile,
      "--log-level",
      "warn",
      "--show-interactive-dev-session=false",
      // DevTools for the Worker's isolate (its JS heap, sampled by the soak).
      "--inspector-port",
      String(this.inspectorPort),
    ]);
    const started = performance.now();
    this.child = spawn(cmd, args, {
      cwd: ROOT,
      env: wranglerEnv(this.logPath ? { WRANGLER_LOG_PATH: this.logPath } : {}),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.pgid = this.child.pid;
    const keep = (chunk) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    this.child.stdout.on("data", keep);
    this.child.stderr.on("data", keep);
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
    let gone = false;
    this.exited.then(() => {
      gone = true;
    });

    for (;;) {
      if (gone) throw new Error(`wrangler dev exited before it answered:\n${this.output}`);
      if (performance.now() - started > timeoutMs) {
        await this.stop();
        throw new Error(`wrangler dev did not answer /healthz within ${timeoutMs / 1000} s:\n${this.output}`);
      }
      try {
        const res = await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    this.readyMs = performance.now() - started;
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
    for (const p of groupProcesses(this.pgid)) {
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

  #signalGroup(signal) {
    try {
      process.kill(-this.pgid, signal);
      return true;
    } catch (error) {
      if (error.code === "ESRCH") return false;
      throw error;
    }
  }

  /** Stops the whole process group; SIGKILL after 5 s. Throws if anything survives. */
  async stop() {
    this.inspector?.close();
    this.inspector = undefined;
    if (!this.child) return;
    this.#signalGroup("SIGTERM");
    const deadline = performance.now() + 5000;
    while (groupProcesses(this.pgid).length > 0 && performance.now() < deadline) await sleep(100);
    if (groupProcesses(this.pgid).length > 0) {
      this.#signalGroup("SIGKILL");
      const killDeadline = performance.now() + 3000;
      while (groupProcesses(this.pgid).length > 0 && performance.now() < killDeadline) await sleep(100);
    }
    const left = groupProcesses(this.pgid);
    this.child = undefined;
    if (left.length > 0) {
      throw new Error(`processes of wrangler dev survived: ${left.map((p) => `${p.pid} ${p.comm}`).join(", ")}`);
    }
  }
}
