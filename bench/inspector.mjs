// A minimal Chrome DevTools Protocol client for the Worker's isolate (through
// wrangler dev's --inspector-port). The bench keeps one attached for the
// server's lifetime: wrangler's inspector proxy buffers every DevTools event
// of the Worker (each console line, each D1 call) without bound until a
// DevTools client attaches, so without one its memory grows all run long and
// the first client to attach gets the whole backlog at once. Attached, the
// events flow through and are dropped here. The soak also reads the Worker's
// JS heap with it, to tell the Worker's own memory from workerd's RSS, and
// the webhook pair its CPU profile.
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "../tools/lib/wrangler.mjs";

const require = createRequire(join(ROOT, "package.json"));

export class Inspector {
  /** `match`: a part of the target's title (workerd lists one target per worker). */
  static async connect(port, { timeoutMs = 10_000, match } = {}) {
    const WebSocket = require("ws");
    const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
    const target = targets.find((t) => t.webSocketDebuggerUrl && (!match || (t.title ?? "").includes(match)));
    if (!target) throw new Error("no inspector target");
    const ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("inspector: connect timed out")), timeoutMs);
      ws.once("open", () => {
        clearTimeout(timer);
        resolve();
      });
      ws.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    return new Inspector(ws);
  }

  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    ws.on("message", (data) => {
      // Events (every console line and D1 call of the Worker) are dropped
      // unparsed: only answers to our commands start with an id.
      const text = data.toString();
      if (!text.startsWith('{"id":')) return;
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        return;
      }
      const waiter = msg.id !== undefined && this.pending.get(msg.id);
      if (waiter) {
        this.pending.delete(msg.id);
        if (msg.error) waiter.reject(new Error(`${msg.error.message} (${msg.error.code})`));
        else waiter.resolve(msg.result);
      }
    });
  }

  send(method, params = {}, timeoutMs = 30_000) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`inspector: ${method} timed out`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * The isolate's JS heap in MiB: `used` (live objects and garbage not yet
   * collected), `total` (what V8 has reserved) and `backing` (ArrayBuffer
   * backing stores, wasm memory included). workerd does not answer
   * HeapProfiler.collectGarbage, so no GC is forced: the trend over many
   * samples is what tells.
   */
  async heapMiB() {
    const r = await this.send("Runtime.getHeapUsage", {}, 5000);
    const mib = (n) => (typeof n === "number" ? n / 2 ** 20 : undefined);
    // backingStorageSize: ArrayBuffer backing stores (PNG bytes, resvg's wasm memory), outside the JS heap.
    return { used: mib(r.usedSize), total: mib(r.totalSize), backing: mib(r.backingStorageSize) };
  }

  /**
   * The JS heap still in use after a full garbage collection, in MiB. workerd
   * does not answer HeapProfiler.collectGarbage, but a heap snapshot collects
   * first; its chunks arrive as events and are dropped. Pauses the isolate
   * for a moment (a few hundred ms for a heap of tens of MiB).
   */
  async retainedHeapMiB() {
    await this.send("HeapProfiler.enable", {}, 5000);
    await this.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false, captureNumericValue: false }, 120_000);
    return this.heapMiB();
  }

  /**
   * Starts V8's CPU profiler on the isolate; `stop()` returns how many
   * samples it took while the isolate ran (not "(idle)"). workerd runs the
   * Worker, local D1 and the local Queue broker on one thread, each in an
   * isolate of its own, and a sample is taken only while this isolate is
   * entered: so the count, at a fixed sampling rate, measures the Worker's
   * own CPU apart from the local platform's (docs/performance.md, "Worker
   * CPU apart from local D1 and Queues"). The effective rate depends on the
   * machine's load: compare counts taken side by side, not across runs.
   */
  async startProfile(intervalUs = 100) {
    await this.send("Profiler.enable");
    await this.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await this.send("Profiler.start");
    return {
      stop: async () => {
        const { profile } = await this.send("Profiler.stop", {}, 120_000);
        const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
        return { samples: profile.samples.length, busySamples: profile.samples.filter((id) => !idle.has(id)).length };
      },
    };
  }

  close() {
    this.ws.close();
  }
}
