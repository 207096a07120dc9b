// The same built Worker and the same local D1, served by Miniflare directly
// (wrangler's own local runtime library) instead of `wrangler dev`: no dev
// proxy worker, no DevTools inspector relaying every D1 call and log line to
// wrangler's Node process. A diagnostic: it shows how much of a scenario's
// cost is the Worker and how much is `wrangler dev`. Same interface as
// WranglerDev (start, stop, base, cpuSeconds, rssMiB).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "../tools/lib/ports.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";
import { Inspector } from "./inspector.mjs";

const require = createRequire(join(ROOT, "package.json"));
const CLK_TCK = 100;

/** workerd processes started by this Node process (Miniflare's runtime). */
export function ownWorkerd() {
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = text.lastIndexOf(")");
      const comm = text.slice(text.indexOf("(") + 1, close);
      const f = text.slice(close + 2).split(" ");
      if (comm === "workerd" && Number(f[1]) === process.pid && f[0] !== "Z") {
        out.push({ pid: Number(name), cpuTicks: Number(f[11]) + Number(f[12]) });
      }
    } catch {
      // gone
    }
  }
  return out;
}

export class DirectMiniflare {
  /**
   * `secrets` and `vars`: the Worker's, besides wrangler.toml's [vars] (its secrets are never read);
   * `config`: another wrangler.toml (see writeConfigWithoutQueueConsumers); `inspect`: open
   * workerd's inspector and attach to the Worker (its heap for the soak, its CPU profile).
   */
  constructor({ script, persistTo, secrets, vars = {}, config = join(ROOT, "wrangler.toml"), inspect = false }) {
    Object.assign(this, { script, persistTo, secrets, vars, config, inspect });
    this.output = "";
  }

  async start() {
    const { Miniflare } = require("miniflare");
    const wrangler = require("wrangler");
    // wrangler.toml turned into Miniflare options (vars, D1 binding, module
    // rules, compatibility date and flags), as wrangler dev does.
    const { workerOptions } = wrangler.unstable_getMiniflareWorkerOptions(this.config, "");
    this.port = await freePort();
    this.inspectorPort = this.inspect ? await freePort() : undefined;
    this.base = `http://127.0.0.1:${this.port}`;
    const started = performance.now();
    this.mf = new Miniflare({
      ...(this.inspect ? { inspectorPort: this.inspectorPort } : {}),
      ...workerOptions,
      // Secrets from .dev.vars must not leak in: only the bench's own.
      bindings: {
        ...Object.fromEntries(Object.entries(workerOptions.bindings ?? {}).filter(([k]) => !/KEY|SECRET/.test(k))),
        ...this.vars,
        ...this.secrets,
      },
      name: "museum-api",
      modules: true,
      scriptPath: this.script,
      modulesRoot: dirname(this.script),
      host: "127.0.0.1",
      port: this.port,
      d1Persist: join(this.persistTo, "v3", "d1"),
      cachePersist: join(this.persistTo, "v3", "cache"),
      // The Worker's console lines are read and dropped (wrangler dev prints
      // them); the runtime's errors are kept for the message if it fails.
      handleRuntimeStdio: (stdout, stderr) => {
        stdout.resume();
        stderr.on("data", (chunk) => {
          this.output = (this.output + chunk.toString()).slice(-5000);
        });
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
    if (this.inspect) {
      // Straight to workerd's inspector: unlike wrangler dev's, nothing enables
      // the Network domain here, so the heap is the Worker's alone.
      this.inspector = await Inspector.connect(this.inspectorPort, { match: "core:user:" }).catch((error) => {
        process.stderr.write(`    (could not attach to the Worker's inspector: ${error.message})\n`);
        return undefined;
      });
    }
    return this;
  }

  cpuSeconds() {
    return { runtime: ownWorkerd().reduce((s, p) => s + p.cpuTicks, 0) / CLK_TCK, proxy: 0, wrangler: 0 };
  }

  rssMiB() {
    let kb = 0;
    for (const p of ownWorkerd()) {
      try {
        kb += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p.pid}/status`, "utf8"))?.[1] ?? 0);
      } catch {
        // gone
      }
    }
    return { runtime: kb / 1024, proxy: 0, wrangler: 0 };
  }

  async stop() {
    this.inspector?.close();
    this.inspector = undefined;
    if (!this.mf) return;
    await this.mf.dispose();
    this.mf = undefined;
    if (ownWorkerd().length > 0) {
      for (const p of ownWorkerd()) process.kill(p.pid, "SIGKILL");
    }
  }
}


/**
 * Loads a Worker that only answers "ok" (bench/control-worker.js) for
 * `seconds` and reports how much workerd's RSS grew per request: the local
 * runtime's own growth, to hold the soak's against.
 */
export async function runControl({ seconds, connections, runLoad }) {
  const { Miniflare } = require("miniflare");
  const script = join(ROOT, "bench", "control-worker.js");
  const mf = new Miniflare({
    modules: true,
    scriptPath: script,
    modulesRoot: dirname(script),
    compatibilityDate: "2026-05-03",
    host: "127.0.0.1",
    port: await freePort(),
  });
  try {
    const url = await mf.ready;
    const rss = () => {
      let kb = 0;
      for (const p of ownWorkerd()) {
        try {
          kb += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p.pid}/status`, "utf8"))?.[1] ?? 0);
        } catch {
          // gone
        }
      }
      return kb / 1024;
    };
    const rssStart = rss();
    const load = await runLoad({ base: url.href, connections, duration: seconds, requests: [{ method: "GET", path: "/" }], expect: [200] });
    const rssEnd = rss();
    return {
      seconds,
      requests: load.requests,
      failures: load.unexpected + load.errors + (load.requests === 0 ? 1 : 0),
      rssStart,
      rssEnd,
      kibPerRequest: ((rssEnd - rssStart) * 1024) / Math.max(1, load.requests),
    };
  } finally {
    await mf.dispose();
  }
}
