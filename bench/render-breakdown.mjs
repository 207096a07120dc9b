#!/usr/bin/env node
// Where a first ticket-image render's CPU goes, inside workerd.
//
//   node bench/render-breakdown.mjs [--renders N] [--warmup N] [--interval US] [--top N] [--json FILE] [--against DIR]
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
//
// --against DIR: another checkout of the project (with its node_modules), for
// a before/after: its Worker is built and served the same way at the same
// time, and step 1 alternates between the two servers request by request, so
// the machine's changing load falls on both alike.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError, log, museumTimeZone, parseArgs, runMain, runWrangler, todayIn } from "../scripts/lib/common.mjs";
import { buildBundle } from "./build.mjs";
import { DirectMiniflare } from "./direct.mjs";
import { percentile } from "./load.mjs";
import { seedDatabase } from "./seed.mjs";

/** Parts of a render, by the function whose frames (and callees) they are. Innermost match wins. */
const PARTS = [
  { part: "QR matrix and QR SVG", functions: ["buildTicketQr"] },
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

/** The workerd processes this process started (Miniflare's runtimes). */
function ownWorkerdPids() {
  const pids = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "workerd") continue;
      if (Number(stat.slice(close + 2).split(" ")[1]) === process.pid) pids.push(pid);
    } catch {
      // gone
    }
  }
  return pids;
}

/** CPU time of these processes, all threads, in ms (ns resolution, from schedstat). */
function cpuMsOf(pids) {
  let ns = 0;
  for (const pid of pids) {
    try {
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

/** Builds a checkout's Worker, seeds its own local D1 and serves it; measures its first fetches. */
async function startSubject({ label, work, configDir, tickets, inspect }) {
  const outdir = join(work, `${label}-dist`);
  const bundle = configDir
    ? (runWrangler(["deploy", "--dry-run", "--outdir", outdir, "--env", "", "--config", join(configDir, "wrangler.toml")], { capture: true }),
      { script: join(outdir, "index.js") })
    : buildBundle(outdir);
  const persistTo = join(work, `${label}-d1`);
  const db = seedDatabase({ persistTo, today: todayIn(museumTimeZone()), events: 1, tickets });
  const auth = `Basic ${Buffer.from(`${db.account.name}:${db.account.secret}`).toString("base64")}`;
  const running = new Set(ownWorkerdPids());
  const server = await new DirectMiniflare({
    script: bundle.script,
    persistTo,
    secrets: { TICKET_SIGNING_KEY: randomBytes(32).toString("hex") },
    inspect,
  }).start();
  const pids = ownWorkerdPids().filter((pid) => !running.has(pid));
  const fetchImage = async (id) => {
    const res = await fetch(`${server.base}/v1.1/tickets/${id}/qr`, { headers: { Authorization: auth } });
    const body = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${label}: GET /qr answered ${res.status}`);
    return body;
  };
  const cpuOf = async (id) => {
    const before = cpuMsOf(pids);
    const body = await fetchImage(id);
    return { ms: cpuMsOf(pids) - before, body };
  };
  return { label, server, ids: [...db.ticketIds], cachedId: db.ticketIds[0], fetchImage, cpuOf };
}

async function main(argv) {
  const args = parseArgs(argv, { options: ["renders", "warmup", "interval", "json", "top", "against"] });
  const renders = Number(args.options.renders ?? 40);
  const interval = Number(args.options.interval ?? 50);
  const warmups = Number(args.options.warmup ?? 40);
  if (!Number.isInteger(renders) || renders < 2) throw new UsageError("--renders must be an integer ≥ 2");
  if (args.options.against && !existsSync(join(args.options.against, "wrangler.toml"))) {
    throw new UsageError("--against needs a checkout of this project (a directory with wrangler.toml and node_modules)");
  }
  const work = mkdtempSync(join(tmpdir(), "museum-render-breakdown-"));
  const subjects = [];
  try {
    const tickets = warmups + 2 * renders + 1;
    log("==> building, seeding and serving the Worker");
    subjects.push(await startSubject({ label: "this checkout", work, tickets, inspect: true }));
    if (args.options.against) {
      log(`==> the same for ${args.options.against}`);
      subjects.push(await startSubject({ label: args.options.against, work, configDir: args.options.against, tickets, inspect: false }));
    }
    const [self] = subjects;
    const inspector = self.server.inspector;
    if (!inspector) throw new Error("could not attach to the Worker's inspector");

    // With --against, each step alternates between the two servers request by
    // request, so the machine's changing load falls on both alike.
    const each = async (count, pickId) => {
      const out = subjects.map(() => []);
      for (let i = 0; i < count; i += 1) {
        for (const [n, subject] of subjects.entries()) out[n].push(await subject.cpuOf(pickId(subject)));
      }
      return out;
    };
    log("==> the first image fetch of a fresh isolate, then first fetches of other tickets, unprofiled");
    const fresh = await each(1, (s) => s.ids.shift());
    // V8 compiles resvg's wasm lazily and tiers hot functions up on background
    // threads (counted in the process's CPU): the first few dozen renders of
    // an isolate cost up to 5× a warm one.
    const warmup = await each(warmups, (s) => s.ids.shift());
    const first = await each(renders, (s) => s.ids.shift());
    const cached = await each(renders, (s) => s.cachedId);
    const ids = self.ids;

    log(`==> ${renders} more first fetches, each profiled (sampling every ${interval} µs)`);
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval });
    const sampled = {};
    const selfTimes = new Map();
    for (const id of ids) {
      await inspector.send("Profiler.start");
      await self.fetchImage(id);
      const { profile } = await inspector.send("Profiler.stop");
      for (const [part, ms] of Object.entries(classify(profile))) sampled[part] = (sampled[part] ?? 0) + ms;
      if (args.options.top) addSelfTimes(selfTimes, profile);
    }

    const sorted = (xs) => [...xs].sort((a, b) => a - b);
    const ms = (results) => results.map((r) => r.ms);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const firstMs = percentile(sorted(ms(first[0])), 50);
    const parts = [...PARTS.map((p) => p.part), NATIVE, GC, OUTSIDE];
    const lines = [
      "| part | share of the samples | ms of a first fetch's CPU |",
      "|---|--:|--:|",
      ...parts.map((part) => {
        const share = (sampled[part] ?? 0) / sampled.total;
        return `| ${part} | ${(share * 100).toFixed(1)} % | ${(share * firstMs).toFixed(2)} |`;
      }),
    ];
    const cpuLines = subjects.flatMap((subject, n) => {
      const q = (p) => percentile(sorted(ms(first[n])), p).toFixed(2);
      return [
        `${subject.label}: PNG ${fresh[n][0].body.length} bytes`,
        `  first fetch in a fresh isolate (initWasm, wasm tier-up):  ${fresh[n][0].ms.toFixed(2)} ms`,
        `  the next ${warmups} first fetches (tier-up), mean:           ${mean(ms(warmup[n])).toFixed(2)} ms`,
        `  then first fetches of a ticket, p10 / p50 / p90 of ${renders}:   ${q(10)} / ${q(50)} / ${q(90)} ms`,
        `  cached fetches, median of ${renders}:                       ${percentile(sorted(ms(cached[n])), 50).toFixed(2)} ms`,
      ];
    });
    process.stdout.write(
      [
        "",
        "Worker CPU (workerd process, all threads, /proc schedstat) of GET /v1.1/tickets/{id}/qr",
        ...cpuLines,
        "",
        `Where a first fetch's CPU goes (this checkout): the V8 profile's samples of ${renders} more first fetches, by part, scaled to the median above`,
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
      const json = subjects.map((subject, n) => ({
        label: subject.label,
        png: fresh[n][0].body.length,
        freshMs: fresh[n][0].ms,
        warmupMs: ms(warmup[n]),
        firstMs: ms(first[n]),
        cachedMs: ms(cached[n]),
        ...(n === 0 ? { interval, sampledMs: sampled } : {}),
      }));
      writeFileSync(args.options.json, JSON.stringify(json, null, 2));
    }
  } finally {
    for (const subject of subjects) await subject.server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runMain(main, "usage: node bench/render-breakdown.mjs [--renders N] [--warmup N] [--interval US] [--top N] [--json FILE] [--against DIR]");
