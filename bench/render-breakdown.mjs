#!/usr/bin/env node
// Where a first ticket-image render's CPU goes, inside workerd.
//
//   node bench/render-breakdown.mjs [--renders N] [--warmup N] [--interval US] [--top N] [--json FILE]
//
// Builds the Worker as `wrangler deploy` would, seeds a throw-away local D1
// with general tickets and serves the bundle with Miniflare directly (workerd,
// no wrangler dev), attached to the Worker's V8 inspector. Then:
//
// 1. CPU per first image fetch (`GET /v1.1/tickets/{id}/qr` of a ticket never
//    rendered): the workerd process's CPU time, all threads, read from
//    /proc/<pid>/task/*/schedstat (nanoseconds) around each request. The very
//    first fetch of the isolate, then --warmup fetches while V8 tiers resvg's
//    wasm up, then --renders fetches of the warm isolate (the median is the
//    number the issue's 10 ms target is about), then cached fetches.
// 2. Where it goes: --renders more first fetches, each under the V8 CPU
//    profiler. performance.now() inside workerd does not advance during CPU
//    work, so the profiler's samples are the clock. Each sample is charged to
//    the innermost function on its stack that names a part of the render (the
//    Worker's functions and resvg-wasm's JS glue keep their names in the
//    unminified bundle); the rest is the request around the render, or native
//    work with no JS frame on the stack. The samples are wall time of the
//    isolate's thread (inflated when the machine is busy), so only their
//    shares are used, scaled to the median CPU of step 1.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError, log, museumTimeZone, parseArgs, runMain, todayIn } from "../scripts/lib/common.mjs";
import { buildBundle } from "./build.mjs";
import { DirectMiniflare } from "./direct.mjs";
import { percentile } from "./load.mjs";
import { seedDatabase } from "./seed.mjs";

/** Parts of a render, by the function whose frames (and callees) they are. Innermost match wins. */
const PARTS = [
  { part: "QR code (matrix, module runs, painting)", functions: ["buildTicketQr", "paintQrModules"] },
  { part: "card SVG (text fitting)", functions: ["buildTicketSvg"] },
  { part: "resvg: parse, fonts into wasm, text layout", functions: ["Resvg", "_Resvg"], url: "resvg" },
  { part: "resvg: rasterise", functions: ["render"], url: "resvg" },
  { part: "pixels out of wasm", functions: ["get pixels", "pixels"], url: "resvg" },
  { part: "PNG encode (JS side)", functions: ["encodePng", "encodeRgbaPng", "toPngPixels", "zlibDeflate", "crc32", "chunk"] },
  { part: "resvg: initWasm", functions: ["initWasm", "ensureResvg", "__wbg_init", "__wbg_finalize_init"] },
];
const OUTSIDE = "request around the render (routing, auth, D1, cache)";
const NATIVE = "native, no JS frame (deflate, wasm compile)";
const GC = "garbage collector";

/** CPU time of this process's workerd children, all threads, in ms (ns resolution, from schedstat). */
function workerdCpuMs() {
  let ns = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "workerd") continue;
      if (Number(stat.slice(close + 2).split(" ")[1]) !== process.pid) continue;
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      }
    } catch {
      // gone
    }
  }
  return ns / 1e6;
}

function classify(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map();
  const lookup = (id) => {
    if (partOf.has(id)) return partOf.get(id);
    const node = nodes.get(id);
    const { functionName, url } = node.callFrame;
    let result;
    if (functionName === "(program)") result = NATIVE;
    else if (functionName === "(garbage collector)") result = GC;
    else if (functionName === "(idle)" || functionName === "(root)") result = null;
    else {
      const hit = PARTS.find((p) => p.functions.includes(functionName) && (!p.url || url.includes(p.url) || url.includes("index")));
      result = hit ? hit.part : parent.has(id) ? lookup(parent.get(id)) : OUTSIDE;
      if (result === null) result = OUTSIDE;
    }
    partOf.set(id, result);
    return result;
  };
  const totals = {};
  for (let i = 0; i < profile.samples.length; i += 1) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const part = lookup(profile.samples[i]);
    if (part === null) continue;
    totals[part] = (totals[part] ?? 0) + delta / 1000;
  }
  totals.total = Object.values(totals).reduce((s, v) => s + v, 0);
  return totals;
}

function addSelfTimes(into, profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < profile.samples.length; i += 1) {
    const { functionName, url, lineNumber } = nodes.get(profile.samples[i]).callFrame;
    if (functionName === "(idle)") continue;
    const key = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}`;
    into.set(key, (into.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  }
}

async function main(argv) {
  const args = parseArgs(argv, { options: ["renders", "warmup", "interval", "json", "top"] });
  const renders = Number(args.options.renders ?? 40);
  const interval = Number(args.options.interval ?? 50);
  const warmups = Number(args.options.warmup ?? 40);
  if (!Number.isInteger(renders) || renders < 2) throw new UsageError("--renders must be an integer ≥ 2");
  const work = mkdtempSync(join(tmpdir(), "museum-render-breakdown-"));
  let server;
  try {
    log("==> building the Worker");
    const bundle = buildBundle(join(work, "dist"));
    log(`==> seeding ${renders} tickets`);
    const today = todayIn(museumTimeZone());
    const db = seedDatabase({ persistTo: join(work, "d1"), today, events: 1, tickets: warmups + 2 * renders + 1 });
    const auth = `Basic ${Buffer.from(`${db.account.name}:${db.account.secret}`).toString("base64")}`;
    server = await new DirectMiniflare({
      script: bundle.script,
      persistTo: join(work, "d1"),
      secrets: { TICKET_SIGNING_KEY: randomBytes(32).toString("hex") },
      inspect: true,
    }).start();
    const inspector = server.inspector;
    if (!inspector) throw new Error("could not attach to the Worker's inspector");

    const fetchImage = async (id) => {
      const res = await fetch(`${server.base}/v1.1/tickets/${id}/qr`, { headers: { Authorization: auth } });
      const body = new Uint8Array(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`GET /qr answered ${res.status}`);
      return body;
    };
    const cpuOf = async (request) => {
      const before = workerdCpuMs();
      const body = await request();
      return { ms: workerdCpuMs() - before, body };
    };
    const ids = [...db.ticketIds];
    log("==> the first image fetch of a fresh isolate, then first fetches of other tickets, unprofiled");
    const fresh = await cpuOf(() => fetchImage(ids.shift()));
    // V8 compiles resvg's wasm lazily and tiers hot functions up on background
    // threads (counted in the process's CPU): the first few dozen renders of
    // an isolate cost up to 5× a warm one.
    const warmup = [];
    for (const id of ids.splice(0, warmups)) warmup.push((await cpuOf(() => fetchImage(id))).ms);
    const cpu = [];
    for (const id of ids.splice(0, renders)) cpu.push((await cpuOf(() => fetchImage(id))).ms);
    const cached = [];
    for (let i = 0; i < renders; i += 1) cached.push((await cpuOf(() => fetchImage(db.ticketIds[1]))).ms);

    log(`==> ${renders} more first fetches, each profiled (sampling every ${interval} µs)`);
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval });
    const sampled = {};
    const selfTimes = new Map();
    for (const id of ids) {
      await inspector.send("Profiler.start");
      await fetchImage(id);
      const { profile } = await inspector.send("Profiler.stop");
      for (const [part, ms] of Object.entries(classify(profile))) sampled[part] = (sampled[part] ?? 0) + ms;
      if (args.options.top) addSelfTimes(selfTimes, profile);
    }

    const sorted = (xs) => [...xs].sort((a, b) => a - b);
    const firstMs = percentile(sorted(cpu), 50);
    const parts = [...PARTS.map((p) => p.part), NATIVE, GC, OUTSIDE];
    const lines = [
      "| part | share of the samples | ms of a first fetch's CPU |",
      "|---|--:|--:|",
      ...parts.map((part) => {
        const share = (sampled[part] ?? 0) / sampled.total;
        return `| ${part} | ${(share * 100).toFixed(1)} % | ${(share * firstMs).toFixed(2)} |`;
      }),
    ];
    const png = fresh.body.length;
    process.stdout.write(
      [
        "",
        `Worker CPU (workerd process, all threads, /proc schedstat) of GET /v1.1/tickets/{id}/qr; PNG ${png} bytes:`,
        `  first fetch in a fresh isolate (initWasm, wasm tier-up):  ${fresh.ms.toFixed(2)} ms`,
        `  the next ${warmup.length} first fetches (tier-up), mean:            ${(warmup.reduce((a, b) => a + b, 0) / Math.max(1, warmup.length)).toFixed(2)} ms`,
        `  then first fetch of a ticket, median of ${cpu.length} (p90):            ${firstMs.toFixed(2)} ms (${percentile(sorted(cpu), 90).toFixed(2)})`,
        `  cached fetch of a ticket, median of ${cached.length}:                 ${percentile(sorted(cached), 50).toFixed(2)} ms`,
        "",
        `Where a first fetch's CPU goes: the V8 profile's samples of ${renders} more first fetches, by part, scaled to the median above`,
        "",
        ...lines,
        "",
      ].join("\n"),
    );
    if (args.options.top) {
      const top = [...selfTimes].sort((a, b) => b[1] - a[1]).slice(0, Number(args.options.top));
      process.stdout.write(`Self time by function, sampled, ms per profiled fetch:\n`);
      for (const [name, ms] of top) process.stdout.write(`  ${(ms / renders).toFixed(3).padStart(8)}  ${name}\n`);
    }
    if (args.options.json) {
      const json = { interval, png, freshMs: fresh.ms, warmupMs: warmup, firstMs: cpu, cachedMs: cached, sampledMs: sampled };
      writeFileSync(args.options.json, JSON.stringify(json, null, 2));
    }
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runMain(main, "usage: node bench/render-breakdown.mjs [--renders N] [--warmup N] [--interval US] [--top N] [--json FILE]");
