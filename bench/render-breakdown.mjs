#!/usr/bin/env node
// Where a first ticket-image render's CPU goes, inside workerd. A phase of
// `npm run bench` (bench/run.mjs, its table by bench/report.mjs), and a
// command of its own for before/after comparisons:
//
//   node bench/render-breakdown.mjs [--renders N] [--warmup N] [--interval US] [--top N] [--json FILE] [--against DIR]
//   node bench/render-breakdown.mjs --fresh [--rounds N] [--json FILE] [--against DIR]
//
// --fresh: the fresh isolates instead (measureFreshIsolates below): the first
// 60 renders of a new isolate for each card kind, and a sale with its
// pre-render. The render cost:
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
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { addDays, museumTimeZone, todayIn } from "../tools/lib/dates.mjs";
import { ROOT, runWrangler } from "../tools/lib/wrangler.mjs";
import { DirectMiniflare, ownWorkerd } from "./direct.mjs";
import { percentile } from "./load.mjs";
import { CARD_KINDS, freshIsolatesSection, renderCostSection } from "./report.mjs";
import { call, expectJson, inParallel } from "./scenario-setup.mjs";
import { nextOpenDay, seedDatabase } from "./seed.mjs";

/** Parts of a render, by the function whose frames (and callees) they are. Innermost match wins. */
const PARTS = [
  { part: "QR matrix and QR SVG (qrcode-svg)", functions: ["buildTicketQr"] },
  { part: "card SVG (text fitting)", functions: ["buildTicketSvg"] },
  { part: "resvg: parse, fonts into wasm, text layout", functions: ["Resvg", "_Resvg"], url: "resvg" },
  { part: "resvg: rasterise", functions: ["render"], url: "resvg" },
  { part: "pixels out of wasm", functions: ["get pixels", "pixels"], url: "resvg" },
  { part: "PNG encode (palette pass, deflate)", functions: ["encodeRgbaPng"] },
  { part: "resvg: initWasm", functions: ["initWasm", "ensureResvg", "__wbg_init", "__wbg_finalize_init"] },
];
const OUTSIDE = "request around the render (routing, auth, D1, cache)";
const NATIVE = "native code with no JS frame";
const GC = "garbage collector";

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

/** Sampled ms of one V8 profile by part of the render (and `total`). */
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

/**
 * Builds a checkout's Worker as `wrangler deploy` would (its /docs assets
 * copied first, as before every build), unminified so the profile keeps the
 * function names; returns the script's path.
 */
function buildCheckout(dir, outdir) {
  const docsAssets = join(dir, "scripts", "docs-assets.mjs");
  if (existsSync(docsAssets)) execFileSync(process.execPath, [docsAssets], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  runWrangler(["deploy", "--dry-run", "--outdir", outdir, "--env", "", "--config", join(dir, "wrangler.toml")], { capture: true });
  return join(outdir, "index.js");
}

/** Builds a checkout's Worker, seeds its own local D1 and serves it; measures its first fetches. */
async function startSubject({ label, dir, work, today, tickets, inspect }) {
  const script = buildCheckout(dir, join(work, `${label}-dist`));
  const persistTo = join(work, `${label}-d1`);
  const db = seedDatabase({ persistTo, today, events: 1, tickets });
  const auth = `Basic ${Buffer.from(`${db.account.name}:${db.account.secret}`).toString("base64")}`;
  const pidsOf = () => ownWorkerd().map((p) => p.pid);
  const running = new Set(pidsOf());
  const server = await new DirectMiniflare({ script, persistTo, secrets: { TICKET_SIGNING_KEY: randomBytes(32).toString("hex") }, inspect }).start();
  const pids = pidsOf().filter((pid) => !running.has(pid));
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

/**
 * Measures this checkout's (and with `against`, another checkout's) Worker
 * CPU per ticket image fetch, and where this checkout's goes. Returns
 * `{ renders, warmups, interval, subjects: [{ label, pngBytes, freshMs,
 * warmupMs[], firstMs[], cachedMs[] }], parts: [{ part, share, ms }], top }`
 * (`ms` of a part: its share of the profiles, times this checkout's median
 * first fetch).
 */
export async function measureRenderCost({ renders = 40, warmups = 40, interval = 50, top = 0, against } = {}) {
  const work = mkdtempSync(join(tmpdir(), "museum-render-breakdown-"));
  const subjects = [];
  try {
    const tickets = warmups + 2 * renders + 1;
    const today = todayIn(await museumTimeZone());
    log("==> render cost: building, seeding and serving the Worker");
    subjects.push(await startSubject({ label: "this checkout", dir: ROOT, work, today, tickets, inspect: true }));
    if (against) {
      log(`==> render cost: the same for ${against}`);
      subjects.push(await startSubject({ label: against, dir: against, work, today, tickets, inspect: false }));
    }
    const [self] = subjects;
    const inspector = self.server.inspector;
    if (!inspector) throw new Error("could not attach to the Worker's inspector");

    // With `against`, each step alternates between the two servers request by
    // request, so the machine's changing load falls on both alike.
    const each = async (count, pickId) => {
      const out = subjects.map(() => []);
      for (let i = 0; i < count; i += 1) {
        for (const [n, subject] of subjects.entries()) out[n].push(await subject.cpuOf(pickId(subject)));
      }
      return out;
    };
    log("==> render cost: the first image fetch of a fresh isolate, then first fetches of other tickets, unprofiled");
    const fresh = await each(1, (s) => s.ids.shift());
    // V8 compiles resvg's wasm lazily and tiers hot functions up on background
    // threads (counted in the process's CPU): the first few dozen renders of
    // an isolate cost up to 5× a warm one.
    const warmup = await each(warmups, (s) => s.ids.shift());
    const first = await each(renders, (s) => s.ids.shift());
    const cached = await each(renders, (s) => s.cachedId);

    log(`==> render cost: ${renders} more first fetches, each profiled (sampling every ${interval} µs)`);
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval });
    const sampled = {};
    const selfTimes = new Map();
    for (const id of self.ids) {
      await inspector.send("Profiler.start");
      await self.fetchImage(id);
      const { profile } = await inspector.send("Profiler.stop");
      for (const [part, ms] of Object.entries(classify(profile))) sampled[part] = (sampled[part] ?? 0) + ms;
      if (top > 0) addSelfTimes(selfTimes, profile);
    }

    const ms = (results) => results.map((r) => r.ms);
    const firstMedian = percentile(ms(first[0]).sort((a, b) => a - b), 50);
    return {
      renders,
      warmups,
      interval,
      subjects: subjects.map((subject, n) => ({
        label: subject.label,
        pngBytes: fresh[n][0].body.length,
        freshMs: fresh[n][0].ms,
        warmupMs: ms(warmup[n]),
        firstMs: ms(first[n]),
        cachedMs: ms(cached[n]),
      })),
      parts: [...PARTS.map((p) => p.part), NATIVE, GC, OUTSIDE].map((part) => {
        const share = (sampled[part] ?? 0) / sampled.total;
        return { part, share, ms: share * firstMedian };
      }),
      top: [...selfTimes]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([name, total]) => ({ name, ms: total / renders })),
    };
  } finally {
    for (const subject of subjects) await subject.server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The candidate for cutting the cold cost: general cards in a fresh isolate
 * whose first request rendered a card after its response (a sale with
 * PRERENDER_TICKET_IMAGES, its render in waitUntil), and which then stood
 * idle for WARM_UP_PAUSE_MS.
 */
const WARMED_UP = "general, after a sale's pre-render";
const WARM_UP_PAUSE_MS = 1000;

/** Cancelled and event cards fetched in turn by the warm isolates: the cancelled card's budget. */
const CANCELLED_PAIRS = 40;

/**
 * Tickets of each card kind, sold through the running server as a kiosk
 * would: general tickets for the next open day, event tickets for an event
 * dated today, and the tickets of a second such event that is then deleted
 * (which cancels them). The server must not prerender (its images would be
 * in the cache the fresh isolates read).
 */
async function sellCards(base, auth, today, perKind, scale = {}) {
  const event = async (name) =>
    expectJson(
      await call(base, auth, "POST", "/special-events", {
        name: `${name} ${randomBytes(4).toString("hex")}`,
        location: "Great Hall",
        eventDescription: "Tickets the render-cost phase draws.",
        dates: [today],
        price: 12,
      }),
      201,
      "creating an event",
    );
  const sell = (body, times = 1) =>
    inParallel(perKind * times, 4, async (n) => {
      const sold = await call(base, auth, "POST", "/tickets", { ...body, email: `render-${n}@example.com` });
      return (await expectJson(sold, 201, "selling a ticket")).ticketId;
    });
  const kept = await event("Render cost: event card");
  const deleted = await event("Render cost: cancelled card");
  const ids = {
    general: await sell({ ticketType: "general", ticketDate: nextOpenDay(addDays(today, 1)) }, scale.general),
    event: await sell({ ticketType: "event", eventId: kept.eventId, ticketDate: today }),
    cancelled: await sell({ ticketType: "event", eventId: deleted.eventId, ticketDate: today }),
  };
  const gone = await call(base, auth, "DELETE", `/special-events/${deleted.eventId}`);
  if (gone.status !== 204) throw new Error(`deleting the event answered ${gone.status}`);
  return ids;
}

/**
 * Worker CPU (the workerd process, all threads: V8's background compilation
 * included) and latency (at the client) of the first renders of fresh
 * isolates, for each card kind, and of a sale with its pre-render in a warm
 * isolate. `checkouts`: [{ label, dir }], this one first; a round starts a
 * fresh server of each checkout for each kind, in an order that alternates
 * round by round, and the sales alternate between the checkouts sale by sale.
 */
export async function measureFreshIsolates({ checkouts, rounds = 3, renders = 60, sales = 40, pairs = CANCELLED_PAIRS }) {
  const work = mkdtempSync(join(tmpdir(), "museum-fresh-isolates-"));
  const servers = [];
  const serve = async (checkout, vars) => {
    const pidsOf = () => ownWorkerd().map((p) => p.pid);
    const running = new Set(pidsOf());
    const server = await new DirectMiniflare({ script: checkout.script, persistTo: checkout.persistTo, secrets: checkout.secrets, vars }).start();
    servers.push(server);
    return { server, pids: pidsOf().filter((pid) => !running.has(pid)) };
  };
  const stop = async (server) => {
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
  };
  const timed = async (pids, request) => {
    const cpuBefore = cpuMsOf(pids);
    const started = performance.now();
    const res = await request();
    await res.arrayBuffer();
    return { status: res.status, cpuMs: cpuMsOf(pids) - cpuBefore, latencyMs: performance.now() - started };
  };
  try {
    const today = todayIn(await museumTimeZone());
    for (const [n, checkout] of checkouts.entries()) {
      log(`==> fresh isolates: building ${checkout.label}, selling its tickets through its API`);
      checkout.script = buildCheckout(checkout.dir, join(work, `dist-${n}`));
      checkout.persistTo = join(work, `d1-${n}`);
      const db = seedDatabase({ persistTo: checkout.persistTo, today, events: 1, tickets: 0 });
      checkout.auth = `Basic ${Buffer.from(`${db.account.name}:${db.account.secret}`).toString("base64")}`;
      checkout.secrets = { TICKET_SIGNING_KEY: randomBytes(32).toString("hex") };
      const { server } = await serve(checkout, { PRERENDER_TICKET_IMAGES: "false" });
      // General tickets for the warmed-up isolates too.
      checkout.ids = await sellCards(server.base, checkout.auth, today, rounds * renders + CANCELLED_PAIRS, { general: 2 });
      await stop(server);
      checkout.fresh = Object.fromEntries([...CARD_KINDS, WARMED_UP].map((kind) => [kind, []]));
    }
    for (let round = 0; round < rounds; round += 1) {
      const order = [...CARD_KINDS, WARMED_UP].flatMap((kind) => checkouts.map((checkout) => ({ kind, checkout })));
      for (const { kind, checkout } of round % 2 === 0 ? order : order.reverse()) {
        log(`==> fresh isolates, round ${round + 1} of ${rounds}: ${checkout.label}, ${kind} cards, ${renders} first renders`);
        const warmedUp = kind === WARMED_UP;
        const { server, pids } = await serve(checkout, { PRERENDER_TICKET_IMAGES: warmedUp ? "true" : "false" });
        if (warmedUp) {
          // The isolate's first request renders a card after its response (a sale's pre-render, in waitUntil).
          const sale = await call(server.base, checkout.auth, "POST", "/tickets", { ticketType: "general", ticketDate: nextOpenDay(addDays(today, 1)), email: "warm-up@example.com" });
          await expectJson(sale, 201, "the warm-up sale");
          await new Promise((resolve) => setTimeout(resolve, WARM_UP_PAUSE_MS));
        }
        const series = [];
        for (const id of checkout.ids[warmedUp ? "general" : kind].splice(0, renders)) {
          const fetched = await timed(pids, () => fetch(`${server.base}/v1.1/tickets/${id}/qr`, { headers: { Authorization: checkout.auth } }));
          if (fetched.status !== 200) throw new Error(`${checkout.label}: GET /qr of a ${kind} ticket answered ${fetched.status}`);
          series.push(fetched);
        }
        checkout.fresh[kind].push(series);
        await stop(server);
      }
    }
    log(`==> a sale with its pre-render, warm isolates, ${sales} sales alternating between the checkouts`);
    const running = [];
    for (const checkout of checkouts) running.push({ checkout, ...(await serve(checkout, { PRERENDER_TICKET_IMAGES: "true" })), sales: [] });
    const saleDate = nextOpenDay(addDays(today, 1));
    const sell = ({ checkout, server, pids }, n) =>
      timed(pids, () =>
        call(server.base, checkout.auth, "POST", "/tickets", { ticketType: "general", ticketDate: saleDate, email: `sale-${n}@example.com` }),
      );
    // The pre-render runs after the response (waitUntil): the CPU is read once it is done.
    const settled = async (subject, n) => {
      const sale = await sell(subject, n);
      const before = cpuMsOf(subject.pids) - sale.cpuMs;
      await new Promise((resolve) => setTimeout(resolve, 250));
      return { ...sale, cpuMs: cpuMsOf(subject.pids) - before };
    };
    for (let n = 0; n < sales; n += 1) for (const subject of running) await settled(subject, n); // tier-up, not measured
    for (let n = 0; n < sales; n += 1) {
      for (const subject of n % 2 === 0 ? running : [...running].reverse()) {
        const sale = await settled(subject, sales + n);
        if (sale.status !== 201) throw new Error(`${subject.checkout.label}: POST /tickets answered ${sale.status}`);
        subject.sales.push(sale);
      }
    }
    log(`==> cancelled against event cards in the same warm isolates, ${pairs} pairs, alternating`);
    for (const subject of running) subject.pairs = [];
    const image = async ({ checkout, server, pids }, kind) => {
      const id = checkout.ids[kind].shift();
      const fetched = await timed(pids, () => fetch(`${server.base}/v1.1/tickets/${id}/qr`, { headers: { Authorization: checkout.auth } }));
      if (fetched.status !== 200) throw new Error(`${checkout.label}: GET /qr of a ${kind} ticket answered ${fetched.status}`);
      return fetched.cpuMs;
    };
    for (let n = 0; n < pairs; n += 1) {
      for (const subject of running) {
        const order = n % 2 === 0 ? ["event", "cancelled"] : ["cancelled", "event"];
        const cpu = {};
        for (const kind of order) cpu[kind] = await image(subject, kind);
        subject.pairs.push(cpu);
      }
    }
    return {
      rounds,
      renders,
      warmedUp: WARMED_UP,
      subjects: running.map(({ checkout, sales: sold, pairs: paired }) => ({ label: checkout.label, fresh: checkout.fresh, sales: sold, pairs: paired })),
    };
  } finally {
    for (const server of [...servers]) await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

const USAGE = "usage: node bench/render-breakdown.mjs [--fresh [--rounds N]] [--renders N] [--warmup N] [--interval US] [--top N] [--json FILE] [--against DIR]";

const OPTIONS = {
  fresh: { type: "boolean" },
  rounds: { type: "string" },
  renders: { type: "string" },
  warmup: { type: "string" },
  interval: { type: "string" },
  top: { type: "string" },
  json: { type: "string" },
  against: { type: "string" },
};

async function main(argv) {
  const { values } = parseCommandLine(argv, OPTIONS, { allowPositionals: false });
  const int = (name, fallback, min) => {
    const n = Number(values[name] ?? fallback);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
  const against = values.against === undefined ? undefined : resolve(values.against);
  if (against && !existsSync(join(against, "wrangler.toml"))) {
    throw new UsageError("--against needs a checkout of this project (a directory with wrangler.toml and node_modules)");
  }
  if (values.fresh) {
    const checkouts = [{ label: "this checkout", dir: ROOT }, ...(against ? [{ label: `before (${basename(against)})`, dir: against }] : [])];
    const freshIsolates = await measureFreshIsolates({ checkouts, rounds: int("rounds", 3, 1) });
    process.stdout.write(`${freshIsolatesSection({ freshIsolates }).join("\n")}\n`);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(freshIsolates, null, 2)}\n`);
    return;
  }
  const renderCost = await measureRenderCost({
    renders: int("renders", 40, 2),
    warmups: int("warmup", 40, 0),
    interval: int("interval", 50, 1),
    top: int("top", 0, 0),
    against,
  });
  process.stdout.write(`${renderCostSection({ renderCost }).join("\n")}\n`);
  if (renderCost.top.length > 0) {
    process.stdout.write("\nSelf time by function, sampled, ms per profiled fetch:\n");
    for (const { name, ms } of renderCost.top) process.stdout.write(`  ${ms.toFixed(3).padStart(8)}  ${name}\n`);
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify(renderCost, null, 2)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await runMain(main, USAGE);
