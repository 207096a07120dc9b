// The servers the bench measures, both serving a Worker built by
// bench/build.mjs: `wrangler dev` (tools/lib/wrangler-dev.mjs, as every tool
// starts it) and Miniflare directly (no dev proxy, no DevTools relay). Their
// CPU time and memory are read from /proc, so the bench runs on Linux only.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { freePort } from "../tools/lib/ports.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";

const require = createRequire(join(ROOT, "package.json"));
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ). */
const CLK_TCK = 100;

/** { pid, state, ppid, comm, cpuTicks } of every live process. */
function processes() {
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = text.lastIndexOf(")");
      const f = text.slice(close + 2).split(" ");
      // utime and stime are fields 14 and 15; a zombie has exited already.
      if (f[0] !== "Z") out.push({ pid: Number(name), ppid: Number(f[1]), comm: text.slice(text.indexOf("(") + 1, close), cpuTicks: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone
    }
  }
  return out;
}

/** Process `root` and its descendants. */
function processTree(root) {
  const all = processes();
  const members = new Map(all.filter((p) => p.pid === root).map((p) => [p.pid, p]));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (!members.has(p.pid) && members.has(p.ppid)) grew = Boolean(members.set(p.pid, p));
  }
  return [...members.values()];
}

const rssMiBOf = (list) =>
  list.reduce((kb, p) => {
    try {
      return kb + Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p.pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      return kb;
    }
  }, 0) / 1024;
const cpuSecondsOf = (list) => list.reduce((s, p) => s + p.cpuTicks, 0) / CLK_TCK;

/** CPU seconds the whole machine has been busy (all cores, /proc/stat): tells other programs' load apart. */
export function machineBusySeconds() {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK;
}

/** CPU time of processes, all threads, in ms at nanosecond resolution (schedstat). */
export function cpuMsOf(pids) {
  let ns = 0;
  for (const pid of pids) {
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // gone
    }
  }
  return ns / 1e6;
}

/** A checkout's wrangler.toml without its Queue consumers (bench only): a request's Queue send is measured, no delivery runs. */
export function writeConfigWithoutQueueConsumers(checkout, path) {
  const stripped = readFileSync(join(checkout, "wrangler.toml"), "utf8").replace(/^\[\[(?:env\.[\w-]+\.)?queues\.consumers\]\]\n(?:.+\n)*/gm, "");
  if (/^\s*\[\[.*queues\.consumers/m.test(stripped)) throw new Error("wrangler.toml: a [[queues.consumers]] table was not removed");
  // The copy lives elsewhere: its relative paths made absolute.
  writeFileSync(path, stripped.replace(/^(\s*(?:main|directory|migrations_dir)\s*=\s*)"([^"]+)"/gm, (_, key, rel) => `${key}${JSON.stringify(resolve(checkout, rel))}`));
  return path;
}

/** `wrangler dev` serving a built Worker; CPU and memory by role: `runtime` (the Worker's workerd), `proxy` (wrangler's). */
export class WranglerDev {
  constructor({ script, persistTo, envFile, vars = {} }) {
    Object.assign(this, { script, persistTo, envFile, vars });
  }

  async start() {
    this.server = await startWranglerDev({ script: this.script, persistTo: this.persistTo, envFile: this.envFile, vars: this.vars, logLevel: "warn" });
    Object.assign(this, { base: this.server.origin, port: this.server.port, root: this.server.pid, readyMs: this.server.readyMs });
    return this;
  }

  roles() {
    const out = { runtime: [], proxy: [], wrangler: [] };
    for (const p of processTree(this.root)) {
      // wrangler's proxy is the workerd that listens on our port.
      const proxy = p.comm === "workerd" && readFileSync(`/proc/${p.pid}/cmdline`, "utf8").includes(`entry=127.0.0.1:${this.port}`);
      out[p.comm === "workerd" ? (proxy ? "proxy" : "runtime") : "wrangler"].push(p);
    }
    return out;
  }

  cpuSeconds() {
    const r = this.roles();
    return { runtime: cpuSecondsOf(r.runtime), proxy: cpuSecondsOf(r.proxy), wrangler: cpuSecondsOf(r.wrangler) };
  }

  rssMiB() {
    const r = this.roles();
    return { runtime: rssMiBOf(r.runtime), proxy: rssMiBOf(r.proxy) };
  }

  async stop() {
    if (!this.server) return;
    const tree = processTree(this.root).map((p) => p.pid);
    await this.server.stop();
    this.server = undefined;
    for (let waited = 0; waited <= 3_000; waited += 100) {
      const left = processes().filter((p) => tree.includes(p.pid));
      if (left.length === 0) return;
      if (waited === 3_000) throw new Error(`processes of wrangler dev survived: ${left.map((p) => `${p.pid} ${p.comm}`).join(", ")}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

/** workerd processes started by this Node process (Miniflare's). */
const ownWorkerd = () => processes().filter((p) => p.comm === "workerd" && p.ppid === process.pid);

/**
 * A built Worker on Miniflare directly, configured from a checkout's
 * wrangler.toml (`config`) as wrangler dev would; `secrets` and `vars` besides
 * its [vars]; `inspect`: attach to the Worker's isolate (`profiler`).
 */
export class DirectMiniflare {
  constructor({ script, persistTo, secrets, vars = {}, config = join(ROOT, "wrangler.toml"), inspect = false }) {
    Object.assign(this, { script, persistTo, secrets, vars, config, inspect, output: "" });
  }

  async start() {
    const { Miniflare } = require("miniflare");
    const { workerOptions } = require("wrangler").unstable_getMiniflareWorkerOptions(this.config, "");
    const running = new Set(ownWorkerd().map((p) => p.pid));
    this.port = await freePort();
    const inspectorPort = this.inspect ? await freePort() : undefined;
    this.base = `http://127.0.0.1:${this.port}`;
    const started = performance.now();
    this.mf = new Miniflare({
      ...(inspectorPort ? { inspectorPort } : {}),
      ...workerOptions,
      // Only the bench's secrets, never .dev.vars'.
      bindings: { ...Object.fromEntries(Object.entries(workerOptions.bindings ?? {}).filter(([k]) => !/KEY|SECRET/.test(k))), ...this.vars, ...this.secrets },
      name: "museum-api",
      modules: true,
      scriptPath: this.script,
      modulesRoot: dirname(this.script),
      host: "127.0.0.1",
      port: this.port,
      d1Persist: join(this.persistTo, "v3", "d1"),
      cachePersist: join(this.persistTo, "v3", "cache"),
      handleRuntimeStdio: (stdout, stderr) => {
        stdout.resume();
        stderr.on("data", (chunk) => (this.output = (this.output + chunk).slice(-5000)));
      },
    });
    try {
      await this.mf.ready;
    } catch (error) {
      throw new Error(`Miniflare did not start: ${error.message}\n${this.output}`);
    }
    const res = await fetch(`${this.base}/healthz`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`Miniflare answered /healthz with ${res.status}`);
    this.readyMs = performance.now() - started;
    this.pids = ownWorkerd().map((p) => p.pid).filter((pid) => !running.has(pid));
    if (inspectorPort) this.profiler = await Profiler.connect(inspectorPort);
    return this;
  }

  cpuSeconds() {
    return { runtime: cpuMsOf(this.pids) / 1000, proxy: 0, wrangler: 0 };
  }

  rssMiB() {
    return { runtime: rssMiBOf(this.pids.map((pid) => ({ pid }))), proxy: 0 };
  }

  async stop() {
    this.profiler?.close();
    if (!this.mf) return;
    await this.mf.dispose();
    this.mf = undefined;
    for (const p of ownWorkerd()) if (this.pids.includes(p.pid)) process.kill(p.pid, "SIGKILL");
  }
}

/**
 * V8's CPU profiler on the Worker's isolate (workerd's inspector). workerd runs
 * the Worker, local D1 and the local Queue broker on one thread, each in its
 * own isolate, and samples only while the Worker's runs: the busy samples per
 * request measure the Worker's own CPU, as Cloudflare meters it.
 */
class Profiler {
  static async connect(port) {
    const WebSocket = require("ws");
    const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
    const target = targets.find((t) => t.webSocketDebuggerUrl && (t.title ?? "").includes("core:user:"));
    if (!target) throw new Error("no inspector target for the Worker");
    const ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((done, fail) => ws.once("open", done).once("error", fail));
    return new Profiler(ws);
  }

  constructor(ws) {
    Object.assign(this, { ws, nextId: 1, pending: new Map() });
    ws.on("message", (data) => {
      const text = data.toString();
      // Events are dropped unparsed: only answers start with an id.
      if (!text.startsWith('{"id":')) return;
      const msg = JSON.parse(text);
      const waiter = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) waiter?.reject(new Error(msg.error.message));
      else waiter?.resolve(msg.result);
    });
  }

  send(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolveAnswer, reject) => {
      this.pending.set(id, { resolve: resolveAnswer, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Starts sampling; `stop()` returns sampleCounts of the profile (`within`: of these functions). */
  async start(within = [], intervalUs = 100) {
    await this.send("Profiler.enable");
    await this.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await this.send("Profiler.start");
    return async () => sampleCounts((await this.send("Profiler.stop")).profile, within);
  }

  close() {
    this.ws.close();
  }
}

/**
 * Of a V8 CPU profile: `busy`, the samples taken while the isolate ran (not
 * idle); `within[name]`, those of them whose stack holds a function of that
 * name (its own work and all it called, awaited continuations included).
 */
export function sampleCounts(profile, within = []) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map(profile.nodes.flatMap((n) => (n.children ?? []).map((child) => [child, n.id])));
  const stackHolds = (id, name) => {
    for (let at = id; at !== undefined; at = parent.get(at)) if (nodes.get(at).callFrame.functionName === name) return true;
    return false;
  };
  const busy = profile.samples.filter((id) => nodes.get(id).callFrame.functionName !== "(idle)");
  return { busy: busy.length, within: Object.fromEntries(within.map((name) => [name, busy.filter((id) => stackHolds(id, name)).length])) };
}
