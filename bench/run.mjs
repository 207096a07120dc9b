#!/usr/bin/env node
// `npm run bench`: the performance benchmark of the Museum API (docs/performance.md).
//
//   npm run bench                  full run (~30 min): writes bench/results/latest.md
//   npm run bench -- --smoke       a few seconds per scenario, small seeds; prints the
//                                  table (kept in $TMPDIR) and exits non-zero on any
//                                  error or unexpected status, never on timings
//   npm run bench -- --only static,qr-cached     just these scenarios
//                                  (render-cost: the render phases, render cost and fresh isolates)
//   options: --duration S  --connections N  --soak S | --no-soak
//            --d1-rtt MS (the hot paths again on the distance bundle, one
//            connection, every D1 round trip delayed by 0 and by MS; default 25,
//            0 skips)
//            --direct | --no-direct (the pass without wrangler dev)  --out FILE
//            --wait-quiet (wait until the 1-minute load average is below 1.5)
//            --against DIR (the render phases' "before": another checkout with its
//            node_modules, built and measured alternately with this one)
//
// What it does: builds the Worker as `wrangler deploy` would (size), profiles
// its startup, seeds two throw-away local D1 databases (100 and 100,000
// events) in a temporary --persist-to directory, starts `wrangler dev` on the
// built bundle on a free port, runs each scenario with autocannon for a fixed
// time at fixed concurrency while reading the CPU time of the workerd
// processes from /proc (Linux only), runs the soak, stops the server, repeats the main scenarios on Miniflare directly (no wrangler dev),
// and writes a Markdown table.
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, freemem, loadavg, tmpdir, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { basicAuthorization } from "../tools/lib/accounts.mjs";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { addDays, museumTimeZone, todayIn } from "../tools/lib/dates.mjs";
import { throwawaySecrets } from "../tools/lib/local-state.mjs";
import { renderStatement, statements } from "../tools/lib/statements.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";
import { buildBundle, startupProfile } from "./build.mjs";
import { percentile, runLoad } from "./load.mjs";
import { renderMarkdown } from "./report.mjs";
import { startWebhookReceiver } from "./scenario-setup.mjs";
import { SCENARIOS, soakRequests } from "./scenarios.mjs";
import { capacityDays, dayPlaces, explainQueryPlan, nextOpenDay, seedDatabase } from "./seed.mjs";
import { DirectMiniflare, runControl } from "./direct.mjs";
import { measureFreshIsolates, measureRenderCost } from "./render-breakdown.mjs";
import { WranglerDev, machineBusySeconds, writeConfigWithoutQueueConsumers } from "./server.mjs";

/** The scenarios repeated without wrangler dev (the diagnostic pass). */
const DIRECT_SCENARIOS = ["static", "event-get", "events-list", "hours", "tickets-buy", "qr-cached", "qr-304"];

const USAGE = `usage: npm run bench [-- [--smoke] [--only id,id] [--duration S] [--connections N]
                        [--soak S | --no-soak] [--direct | --no-direct] [--d1-rtt MS] [--out FILE] [--wait-quiet] [--against DIR]]
scenarios: ${SCENARIOS.map((s) => s.id).join(", ")}, soak, render-cost
The CPU and memory meter reads /proc: the bench runs on Linux only.`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const require = createRequire(import.meta.url);

function settings(args) {
  const smoke = args.smoke === true;
  const num = (name, fallback) => {
    const value = args[name];
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number`);
    return n;
  };
  const d1Rtt = args["d1-rtt"] === undefined ? 25 : Number(args["d1-rtt"]);
  if (!Number.isFinite(d1Rtt) || d1Rtt < 0) throw new UsageError("--d1-rtt must be a number of milliseconds, 0 or more");
  const only = args.only?.split(",").map((s) => s.trim()).filter(Boolean);
  const known = new Set([...SCENARIOS.map((s) => s.id), "soak", "render-cost"]);
  for (const id of only ?? []) if (!known.has(id)) throw new UsageError(`unknown scenario ${id}`);
  return {
    smoke,
    only,
    duration: num("duration", smoke ? 2 : 10),
    warmup: smoke ? 0.5 : 2,
    connections: num("connections", 10),
    soakSeconds: args["no-soak"] ? 0 : num("soak", smoke ? 5 : 60),
    qrFirstRequests: smoke ? 10 : 150,
    admissions: smoke ? 10 : 150,
    eventCreates: smoke ? 20 : 200,
    smallEvents: 100,
    largeEvents: smoke ? 2_000 : 100_000,
    soakTickets: smoke ? 50 : 400,
    startupRuns: smoke ? 0 : 3,
    // A smoke run's table is printed and kept out of the working tree.
    out: args.out ?? (smoke ? join(tmpdir(), "museum-bench-smoke.md") : join(ROOT, "bench", "results", "latest.md")),
    waitQuiet: args["wait-quiet"] === true,
    direct: args.direct === true || (!smoke && !args["no-direct"]),
    directDuration: num("duration", smoke ? 2 : 5),
    d1Rtt,
    distanceDuration: num("duration", smoke ? 2 : 5),
    control: !smoke,
    renderCost: { renders: smoke ? 5 : 40, warmups: smoke ? 5 : 40 },
    freshIsolates: { rounds: smoke ? 1 : 3, sales: smoke ? 5 : 40 },
    // The alternating pairs' rounds; issue 20's sales per side and round, and the full day's tickets.
    pairRounds: smoke ? 1 : 20,
    pairSales: smoke ? 20 : 300,
    // Issue 21's order pair: its rounds, sales per side and round, and sales a second (bench/scenarios.mjs, ORDER_PAIRS).
    orderPairRounds: smoke ? 1 : 10,
    orderPairSales: smoke ? 10 : 100,
    orderPairRate: 10,
    fullDayTickets: 10_000,
    against: args.against === undefined ? undefined : resolve(args.against),
  };
}

function machine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown";
  const os = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? process.platform;
  const version = (pkg) => require(`${pkg}/package.json`).version;
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "wrangler.toml", "package.json"], {
      cwd: ROOT,
      encoding: "utf8",
    }).trim();
    if (dirty) commit += " + uncommitted changes";
  } catch {
    // not a git checkout
  }
  return {
    cpus: cpus().length,
    model,
    memGiB: totalmem() / 2 ** 30,
    freeGiB: freemem() / 2 ** 30,
    os,
    kernel: readFileSync("/proc/sys/kernel/osrelease", "utf8").trim(),
    node: process.version,
    wrangler: version("wrangler"),
    workerd: version("@cloudflare/workerd-linux-64"),
    autocannon: version("autocannon"),
    commit,
  };
}

async function waitForQuiet(limit = 1.5, maxWaitS = 600) {
  const started = Date.now();
  while (loadavg()[0] > limit && Date.now() - started < maxWaitS * 1000) {
    log(`load average ${loadavg()[0].toFixed(2)} > ${limit}: waiting for a quiet machine…`);
    await sleep(15_000);
  }
}

/** Fetches once and checks the status: a clear message beats a table of errors. */
async function probe(base, request, expect) {
  const res = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const body = await res.text();
  if (!expect.includes(res.status)) {
    throw new Error(`${request.method} ${request.path} answered ${res.status}, expected ${expect.join("/")}: ${body.slice(0, 500)}`);
  }
  // As autocannon would (a scenario may count its responses).
  request.onResponse?.(res.status, body, {});
  return res;
}

/** The first request a scenario's list would send, resolved through setupRequest. */
function firstRequest(requests) {
  const r = { headers: {}, ...requests[0] };
  return r.setupRequest ? r.setupRequest({ ...r }) : r;
}

/** The warm-up requests of an "amount" scenario (a pass may scale them, see serverPasses). */
function warmupOf(scenario, cfg) {
  return (scenario.warmup ?? 0) * (cfg.warmupScale ?? 1);
}

/** The requests an "amount" scenario measures. */
function amountOf(scenario, cfg) {
  return scenario.amount?.(cfg) ?? cfg.qrFirstRequests;
}

/**
 * The scenario's work off the request path that outlived the load (the
 * webhook Queue's deliveries): waits for it to finish and meters the
 * Worker's process meanwhile. Deliveries that arrived during the load ran in
 * the same process, so their CPU is inside the load's Worker CPU; the
 * drain's CPU per delivery estimates how much.
 */
async function measureSettle(server, scenario, env, deliveriesBefore) {
  const afterLoad = env.receiver?.received();
  const started = performance.now();
  const before = server.cpuSeconds().runtime;
  const drained = await scenario.settle(env);
  const cpuMs = (server.cpuSeconds().runtime - before) * 1000;
  const out = { drained, seconds: (performance.now() - started) / 1000, cpuMs };
  if (env.receiver) {
    out.deliveriesDuringLoad = afterLoad - deliveriesBefore;
    out.deliveriesAfterLoad = env.receiver.received() - afterLoad;
    out.cpuMsPerDelivery = out.deliveriesAfterLoad > 0 ? cpuMs / out.deliveriesAfterLoad : undefined;
  }
  return out;
}

async function runScenario(server, scenario, ctx, cfg, env) {
  const base = server.base;
  const connections = scenario.connections ?? cfg.connections;
  const expect = scenario.expect;

  // Warm-up: the isolate, the JIT, resvg's wasm, the image caches. Not measured.
  let warmupFailures = 0;
  if (scenario.id === "qr-first") {
    for (const id of ctx.tickets.warm) {
      await probe(base, { method: "GET", path: `/v1.1/tickets/${id}/qr`, headers: { Authorization: ctx.auth } }, [200]);
    }
  } else {
    await probe(base, firstRequest(scenario.requests(ctx)), expect);
    const warmup = scenario.mode === "amount" ? { amount: warmupOf(scenario, cfg) } : { duration: cfg.warmup };
    const warm = await runLoad({ base, connections, ...warmup, requests: scenario.requests(ctx), expect, sequence: scenario.sequence });
    warmupFailures = warm.unexpected + warm.errors;
  }
  // The warm-up's work off the request path is done before the measurement
  // starts. Without a Queue consumer there is none: nothing is delivered.
  const settle = env.queueConsumer ? scenario.settle : undefined;
  if (settle && !(await settle(env))) warmupFailures += 1;

  const meter = startCpuMeter(server);
  const profile = await env.profiler?.startProfile();
  const deliveriesBefore = env.receiver?.received();
  const load =
    scenario.mode === "amount"
      ? await runLoad({ base, connections, amount: amountOf(scenario, cfg), rate: cfg.rate, requests: scenario.requests(ctx), expect })
      : await runLoad({ base, connections, duration: cfg.duration, requests: scenario.requests(ctx), expect, sequence: scenario.sequence });
  const { cpuMs, loadGeneratorMs, otherCores } = meter.stop(load);
  const isolate = profile && (await profile.stop());
  if (isolate) isolate.busySamplesPerRequest = isolate.busySamples / Math.max(1, load.requests);
  const background = settle ? await measureSettle(server, scenario, env, deliveriesBefore) : undefined;
  if (background?.cpuMsPerDelivery !== undefined) {
    // The load's Worker CPU less the deliveries' estimated share: the requests' own.
    const deliveriesCpuMs = background.deliveriesDuringLoad * background.cpuMsPerDelivery;
    background.requestPathCpuMs = Math.max(0, cpuMs.runtime - deliveriesCpuMs / Math.max(1, load.requests));
  }
  return {
    id: scenario.id,
    title: scenario.title,
    kind: scenario.kind,
    db: scenario.db,
    connections,
    mode: scenario.mode ?? "duration",
    sequence: scenario.sequence ?? 1,
    ...load,
    warmupFailures,
    otherCores,
    loadGeneratorMs,
    // A scenario that got no answer at all failed, whatever else it reports.
    // A scenario whose off-path work never finished failed too.
    failures: load.unexpected + load.errors + warmupFailures + (load.requests === 0 ? 1 : 0) + (background && !background.drained ? 1 : 0),
    cpuMs,
    isolate,
    background,
  };
}

/**
 * Starts counting CPU: the server's processes by role, this process (the load
 * generator), and the whole machine. `stop(load)` returns the server's CPU per
 * request in ms by role, the load generator's ms per request, and the cores
 * other programs kept busy meanwhile (a run on a busy machine says so).
 */
function startCpuMeter(server) {
  const before = server.cpuSeconds();
  const machineBefore = machineBusySeconds();
  const selfBefore = process.cpuUsage();
  return {
    stop(load) {
      const after = server.cpuSeconds();
      const self = process.cpuUsage(selfBefore);
      const selfSeconds = (self.user + self.system) / 1e6;
      const roles = ["runtime", "proxy", "wrangler"];
      const spent = Object.fromEntries(roles.map((role) => [role, after[role] - before[role]]));
      const ours = roles.reduce((sum, role) => sum + spent[role], selfSeconds);
      const perRequest = (seconds) => (seconds * 1000) / Math.max(1, load.requests);
      return {
        cpuMs: Object.fromEntries(roles.map((role) => [role, perRequest(spent[role])])),
        loadGeneratorMs: perRequest(selfSeconds),
        otherCores: Math.max(0, (machineBusySeconds() - machineBefore - ours) / load.seconds),
      };
    },
  };
}

async function runSoak(server, ctx, cfg) {
  const samples = [];
  const heap = [];
  const started = performance.now();
  // The Worker isolate's own JS heap, through wrangler dev's DevTools port.
  const inspector = server.inspector;
  let heapBusy = false;
  const sampleHeap = async () => {
    if (!inspector || heapBusy) return;
    heapBusy = true;
    try {
      heap.push({ t: (performance.now() - started) / 1000, ...(await inspector.heapMiB()) });
    } catch {
      // a missed sample
    } finally {
      heapBusy = false;
    }
  };
  const sample = () => {
    samples.push({ t: (performance.now() - started) / 1000, ...server.rssMiB() });
    void sampleHeap();
  };
  // The heap kept after a full collection: before the load, halfway, after it.
  const retained = {};
  const measureRetained = async (key) => {
    if (!inspector) return;
    while (heapBusy) await sleep(20);
    heapBusy = true;
    try {
      retained[key] = await inspector.retainedHeapMiB();
    } catch (error) {
      log(`    (no retained-heap reading at ${key}: ${error.message})`);
    } finally {
      heapBusy = false;
    }
  };
  await measureRetained("start");
  sample();
  const timer = setInterval(sample, 1000);
  const halfway = setTimeout(() => void measureRetained("middle"), (cfg.soakSeconds * 1000) / 2);
  const meter = startCpuMeter(server);
  let load;
  try {
    load = await runLoad({
      base: server.base,
      connections: cfg.connections,
      duration: cfg.soakSeconds,
      requests: soakRequests(ctx),
      expect: [200, 201],
    });
  } finally {
    clearInterval(timer);
    clearTimeout(halfway);
  }
  sample();
  while (heapBusy) await sleep(50);
  await measureRetained("end");
  const { cpuMs, otherCores } = meter.stop(load);
  const at = (fraction) => {
    const t = fraction * cfg.soakSeconds;
    return samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best), samples[0]);
  };
  return {
    id: "soak",
    connections: cfg.connections,
    ...load,
    seconds: cfg.soakSeconds,
    measuredSeconds: load.seconds,
    failures: load.unexpected + load.errors + (load.requests === 0 ? 1 : 0),
    otherCores,
    cpuMs: { runtime: cpuMs.runtime, proxy: cpuMs.proxy },
    heap: heapSummary(heap, cfg.soakSeconds),
    retainedHeap: retained,
    rss: {
      start: at(0),
      quarter: at(0.25),
      middle: at(0.5),
      threeQuarters: at(0.75),
      end: samples[samples.length - 1],
      maxRuntime: Math.max(...samples.map((s) => s.runtime)),
    },
    samples,
    heapSamples: heap,
  };
}

/**
 * The Worker's JS heap over the soak, by fifths: the lowest `used` of each
 * (the floor after garbage collections: what is really kept), and the last
 * `total` and `backing` sample of each.
 */
function heapSummary(heap, seconds) {
  if (heap.length < 5) return undefined;
  const part = (from, to) => {
    const xs = heap.filter((h) => h.t >= from * seconds && h.t <= to * seconds);
    const last = xs[xs.length - 1] ?? {};
    return { used: Math.min(...xs.map((h) => h.used)), total: last.total, backing: last.backing, samples: xs.length };
  };
  return {
    first: part(0, 0.2),
    middle: part(0.4, 0.6),
    last: part(0.8, 1.01),
    maxTotal: Math.max(...heap.map((h) => h.total)),
    maxUsed: Math.max(...heap.map((h) => h.used)),
    samples: heap.length,
  };
}

const OPTIONS = {
  smoke: { type: "boolean" },
  "no-soak": { type: "boolean" },
  "wait-quiet": { type: "boolean" },
  direct: { type: "boolean" },
  "no-direct": { type: "boolean" },
  help: { type: "boolean" },
  "d1-rtt": { type: "string" },
  only: { type: "string" },
  duration: { type: "string" },
  connections: { type: "string" },
  soak: { type: "string" },
  out: { type: "string" },
  against: { type: "string" },
};

/** What this run does: its settings and the scenarios it picked. */
function plan(cfg) {
  const wanted = (id) => !cfg.only || cfg.only.includes(id);
  const scenarios = SCENARIOS.filter((s) => wanted(s.id));
  const runSoak = cfg.soakSeconds > 0 && wanted("soak");
  return {
    cfg,
    scenarios,
    runSoak,
    needsLarge: scenarios.some((s) => s.db === "large"),
    needsSmall: scenarios.some((s) => s.db === "small") || runSoak,
    needsCapacity: scenarios.some((s) => s.db === "capacity"),
  };
}

/** Phase 1: bundle size and startup. */
function measureBundle(cfg, work, results) {
  // The /docs page's static assets are copied first, as before every build
  // (npm's predev/pretest/predeploy do the same).
  execFileSync(process.execPath, [join(ROOT, "scripts", "docs-assets.mjs")], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  log("==> building the Worker (wrangler deploy --dry-run)");
  results.bundle = buildBundle(join(work, "bundle"));
  if (!cfg.smoke) results.bundleMinified = buildBundle(join(work, "bundle-min"), { minify: true });
  if (cfg.d1Rtt > 0) {
    log("==> building the distance bundle (bench/distance-worker.ts; never deployed)");
    results.distanceScript = buildBundle(join(work, "bundle-distance"), { entry: join(ROOT, "bench", "distance-worker.ts") }).script;
  }
  if (cfg.startupRuns === 0) return;
  log(`==> profiling the Worker's startup (wrangler check startup, ${cfg.startupRuns} runs each)`);
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const runs = (minify) =>
    Array.from({ length: cfg.startupRuns }, (_, i) =>
      startupProfile(join(work, `startup-${minify ? "min" : "raw"}-${i}.cpuprofile`), { minify }),
    );
  const raw = runs(false);
  const min = runs(true);
  results.startup = { busyMs: median(raw.map((r) => r.busyMs)), busyMsMinified: median(min.map((r) => r.busyMs)), runs: { raw, min } };
}

/** Phase 2: the throw-away databases and the Worker's secrets for this run (.dev.vars is not read). */
async function prepareDatabases(run, work, results) {
  const { cfg } = run;
  const timeZone = await museumTimeZone();
  const today = todayIn(timeZone);
  const envFile = join(work, "bench.env");
  const secrets = throwawaySecrets();
  writeFileSync(envFile, Object.entries(secrets).map(([name, value]) => `${name}=${value}\n`).join(""), { mode: 0o600 });
  const dbs = {};
  if (run.needsSmall) {
    log(`==> seeding the small database: ${cfg.smallEvents} events`);
    const tickets = 3 + cfg.qrFirstRequests + 20 + cfg.soakTickets;
    dbs.small = seedDatabase({ persistTo: join(work, "d1-small"), today, events: cfg.smallEvents, tickets });
  }
  if (run.needsLarge) {
    log(`==> seeding the large database: ${cfg.largeEvents.toLocaleString("en")} events`);
    dbs.large = seedDatabase({ persistTo: join(work, "d1-large"), today, events: cfg.largeEvents, tickets: 1 });
    results.largeSeed = { events: cfg.largeEvents, ...dbs.large.timings };
    log(`    seeded in ${(dbs.large.timings.seedMs / 1000).toFixed(1)} s`);
    try {
      results.queryPlan = listQueryPlan(join(work, "d1-large"), today);
    } catch (error) {
      results.queryPlan = { error: error.message };
    }
  }
  if (run.needsCapacity) {
    const days = capacityDays(today, cfg.pairRounds);
    log(`==> seeding the capacity database: ${cfg.fullDayTickets.toLocaleString("en")} general tickets for ${days.full}`);
    const persistTo = join(work, "d1-capacity");
    dbs.capacity = seedDatabase({ persistTo, today, events: cfg.smallEvents, tickets: 0, dayTickets: { date: days.full, count: cfg.fullDayTickets } });
    // The sale's guard reads the counter, so the full day is full only if the triggers counted every row.
    const places = dayPlaces(persistTo, days.full);
    if (places.counter !== cfg.fullDayTickets || places.tickets !== cfg.fullDayTickets) {
      throw new Error(`the full day holds ${places.tickets} tickets and its ticket_places counter says ${places.counter}, not ${cfg.fullDayTickets}`);
    }
    results.capacitySeed = { days: { ...days, empty: undefined }, places };
  }
  results.seed = { small: dbs.small?.timings, large: dbs.large?.timings, capacity: dbs.capacity?.timings, today, timeZone };
  return { dbs, today, envFile, secrets };
}

/** The request context of the scenarios against one database. */
function scenarioContext(db, today, firstCount, rounds) {
  const ids = db.ticketIds;
  return {
    days: capacityDays(today, rounds),
    auth: basicAuthorization(db.account.name, db.account.secret),
    gateAuth: basicAuthorization(db.gate.name, db.gate.secret),
    today,
    saleDate: nextOpenDay(addDays(today, 1)),
    eventIds: db.eventIds,
    runId: randomBytes(4).toString("hex"),
    tickets: { cached: ids[0], warm: ids.slice(1, 3), first: ids.slice(3, 3 + firstCount), soak: ids.slice(3 + firstCount) },
  };
}

/**
 * A pass of alternating pairs (see runScenarios): Miniflare directly with no Queue consumer (no
 * delivery runs in the metered process), the Worker's isolate profiled, one connection.
 */
const pairPass = (pass) => ({ dbName: "small", direct: true, queueConsumer: false, profileIsolate: true, connections: 1, soak: false, ...pass });

/** The server passes of phase 3: one server per database, then the diagnostic pass without wrangler dev. */
function serverPasses({ cfg, scenarios, runSoak }) {
  return [
    { dbName: "small", direct: false, list: scenarios.filter((s) => s.db === "small" && s.kind !== "order-pair"), soak: false },
    // Issue 13's pair again, on Miniflare directly with no Queue consumer, so no delivery runs in the
    // metered process; the Worker's isolate under V8's profiler (its own CPU, apart from local D1's and
    // the local Queue broker's: bench/inspector.mjs, startProfile). Its sides alternate round after
    // round (see runScenarios), and the median of the rounds' ratios is checked.
    pairPass({
      into: "isolatePair",
      // One request at a time, 100 a second: a request's latency is its own, not a wait behind the
      // previous one's work after its response (the Queue send, which local D1 and the local broker
      // share a thread with); and the profiler's sampling thread gets a core when it should.
      rate: 100,
      scale: 2,
      rounds: cfg.pairRounds,
      list: scenarios.filter((s) => s.kind === "webhooks"),
    }),
    // Issue 20's pairs (CAPACITY_PAIRS), measured as issue 13's: a sale on a full day against an
    // empty one, on a day with limits against one without. The sale's image pre-render is off:
    // it is the same work on both sides, after the response, and would only dilute the ratios.
    pairPass({
      dbName: "capacity",
      into: "capacityPairs",
      vars: { PRERENDER_TICKET_IMAGES: "false" },
      rate: 100,
      rounds: cfg.pairRounds,
      list: scenarios.filter((s) => s.kind === "capacity"),
    }),
    // Issue 21's pair (ORDER_PAIRS): an order of 4 against a single purchase, with the sale's image
    // pre-render as deployed (on: the order's 4 images are rendered after its response) and off (the
    // sales' own work only). A few sales a second, so each pre-render is done before the next sale;
    // at that pace the profiler's own sampling would outweigh the sales in the process's CPU, so it
    // is off and the Worker's CPU is the workerd process's (local D1 included).
    ...[true, false].map((prerender) =>
      pairPass({
        into: prerender ? "orderPairs" : "orderPairsNoPrerender",
        profileIsolate: false,
        vars: { PRERENDER_TICKET_IMAGES: String(prerender) },
        rate: cfg.orderPairRate,
        rounds: cfg.orderPairRounds,
        list: scenarios.filter((s) => s.kind === "order-pair"),
      }),
    ),
    // The soak gets a fresh server with a DevTools client attached from the
    // start, to read the Worker's heap (bench/inspector.mjs).
    { dbName: "small", direct: false, list: [], soak: runSoak },
    { dbName: "large", direct: false, list: scenarios.filter((s) => s.db === "large"), soak: false },
    { dbName: "small", direct: true, list: cfg.direct ? scenarios.filter((s) => DIRECT_SCENARIOS.includes(s.id)) : [], soak: false },
    // The soak again without wrangler dev: the Worker's heap without wrangler's DevTools relay.
    { dbName: "small", direct: true, list: [], soak: runSoak && cfg.direct },
    // The hot paths on the distance bundle: D1 next door (0 ms), then a network hop away.
    ...(cfg.d1Rtt > 0 ? [0, cfg.d1Rtt] : []).map((rtt) => ({
      dbName: "small",
      direct: false,
      distance: rtt,
      list: scenarios.filter((s) => s.hot),
      soak: false,
    })),
  ].filter((pass) => pass.list.length > 0 || pass.soak);
}

/** Bench-only: webhook subscriptions may point at the bench's loopback receiver. */
const BENCH_VARS = { WEBHOOK_ALLOW_LOOPBACK: "true" };

function serverFor(pass, { work, envFile, secrets, script, distanceScript }) {
  const persistTo = join(work, `d1-${pass.dbName}`);
  if (pass.distance !== undefined) {
    const logPath = join(work, `wrangler-distance-${pass.distance}.log`);
    return new WranglerDev({ script: distanceScript, persistTo, envFile, logPath, vars: { ...BENCH_VARS, BENCH_D1_RTT_MS: String(pass.distance) } });
  }
  if (pass.queueConsumer === false) {
    const config = writeConfigWithoutQueueConsumers(join(work, "wrangler-no-queue-consumer.toml"));
    return new DirectMiniflare({ script, persistTo, secrets, vars: { ...BENCH_VARS, ...pass.vars }, config, inspect: pass.profileIsolate });
  }
  if (pass.direct) return new DirectMiniflare({ script, persistTo, secrets, inspect: pass.soak });
  return new WranglerDev({ script, persistTo, envFile, logPath: join(work, `wrangler-${pass.dbName}.log`), attachInspector: pass.soak, vars: BENCH_VARS });
}

/** Phase 3, one pass: start its server, run its scenarios and soak, stop it. */
async function runPass(pass, setup, results, servers) {
  const { cfg } = setup;
  const server = serverFor(pass, setup);
  const label = pass.profileIsolate
    ? "Miniflare directly, no Queue consumer, the Worker's isolate profiled"
    : pass.direct
      ? "Miniflare directly"
      : pass.distance !== undefined
        ? `wrangler dev, distance bundle, D1 ${pass.distance} ms away`
        : "wrangler dev";
  servers.add(server);
  log(`==> starting ${label} (${pass.dbName} database)`);
  await server.start();
  const main = !pass.direct && pass.distance === undefined;
  if (main && !pass.soak) results[`ready_${pass.dbName}`] = server.readyMs;
  log(`    ${server.base} answered /healthz after ${(server.readyMs / 1000).toFixed(1)} s`);
  const ctx = scenarioContext(setup.dbs[pass.dbName], setup.today, cfg.qrFirstRequests + 20, pass.rounds ?? 1);
  if (pass.dbName === "small") {
    const qr = { method: "GET", path: `/v1.1/tickets/${ctx.tickets.cached}/qr`, headers: { Authorization: ctx.auth } };
    ctx.etag = (await probe(server.base, qr, [200])).headers.get("etag");
    if (pass.soak && !pass.direct) results.rssIdleMiB = server.rssMiB();
  }
  const soakIdle = pass.soak ? server.rssMiB() : undefined;
  await runScenarios(pass, server, ctx, setup, results);
  if (pass.soak) await runSoakPass(pass, server, ctx, cfg, results, soakIdle);
  // wrangler's proxy after the scenarios, with no DevTools client attached (see inspector.mjs).
  if (main && pass.list.length > 0) (results.proxyRssAfter ??= {})[pass.dbName] = server.rssMiB().proxy;
  await server.stop();
  servers.delete(server);
  log(`    ${label} stopped (no process of it left)`);
}

async function runScenarios(pass, server, ctx, setup, results) {
  const { cfg } = setup;
  const distant = pass.distance !== undefined;
  const into = pass.into
    ? (results[pass.into] ??= [])
    : pass.direct
      ? (results.direct ??= [])
    : distant
      ? ((results.distance ??= {})[pass.distance] ??= [])
      : results.scenarios;
  const duration = pass.direct ? cfg.directDuration : distant ? cfg.distanceDuration : cfg.duration;
  // At a distance, latency is what is measured: one connection, so no request queues behind another's CPU.
  const scale = pass.scale ?? 1;
  const scenarioCfg = distant
    ? { ...cfg, duration, connections: 1 }
    : { ...cfg, duration, connections: pass.connections ?? cfg.connections, rate: pass.rate, eventCreates: cfg.eventCreates * scale, warmupScale: scale };
  const rounds = pass.rounds ?? 1;
  // Round after round, the list in order, then reversed (A B, B A, A B...): a trend in the machine's
  // load or the isolate's warmth falls on both sides alike.
  const runs = Array.from({ length: rounds }, (_, i) =>
    (i % 2 === 0 ? pass.list : [...pass.list].reverse()).map((scenario) => ({ scenario, round: i + 1 })),
  ).flat();
  for (const { scenario, round } of runs) {
    const where = pass.profileIsolate ? " (Miniflare directly, no Queue consumer)" : pass.direct ? " (Miniflare directly)" : distant ? ` (D1 ${pass.distance} ms away)` : "";
    log(`==> ${scenario.id}${where}${rounds > 1 ? `, round ${round} of ${rounds}` : ""}: ${scenario.title}`);
    // Every request it will send: the probe, the warm-up, the load, and two passes counting round trips.
    const count = scenario.mode === "amount" ? 1 + warmupOf(scenario, scenarioCfg) + amountOf(scenario, scenarioCfg) + 2 * scenario.requests(ctx).length : undefined;
    const env = { base: server.base, ctx, cfg: scenarioCfg, receiver: setup.receiver, count, queueConsumer: pass.queueConsumer !== false };
    if (pass.profileIsolate) env.profiler = server.inspector;
    if (scenario.prepare) {
      log("    preparing (bench/scenario-setup.mjs)…");
      await scenario.prepare(env);
    }
    const r = await runScenario(server, scenario, ctx, scenarioCfg, env);
    if (distant) r.roundTrips = await measureRoundTrips(server.base, scenario, ctx);
    if (rounds > 1) r.round = round;
    await scenario.cleanup?.(env);
    into.push(r);
    log(
      `    ${r.requests} requests, ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
        `failures ${r.failures}, worker CPU ${r.cpuMs.runtime.toFixed(2)} ms/req`,
    );
  }
}

/**
 * D1 round trips of one pass through the scenario's requests (the whole
 * sequence for a kiosk's), as the distance bundle counts them
 * (`x-bench-d1-round-trips`, bench/distance-worker.ts). Measured on a second
 * pass, once the first has made the login a remembered one.
 */
async function measureRoundTrips(base, scenario, ctx) {
  let total = 0;
  for (let pass = 0; pass < 2; pass += 1) {
    const context = {};
    total = 0;
    for (const template of scenario.requests(ctx)) {
      const request = template.setupRequest ? template.setupRequest({ headers: {}, ...template }, context) : template;
      const res = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
      template.onResponse?.(res.status, await res.text(), context);
      total += Number(res.headers.get("x-bench-d1-round-trips"));
    }
  }
  return total;
}

async function runSoakPass(pass, server, ctx, cfg, results, soakIdle) {
  log(`==> soak${pass.direct ? " (Miniflare directly)" : ""}: ${cfg.soakSeconds} s of mixed reads, purchases and QR fetches`);
  const soak = await runSoak(server, ctx, cfg);
  if (pass.direct) {
    // Socket resets by workerd's own HTTP server (no wrangler proxy in
    // front) are reported, not counted as the Worker's failures.
    soak.socketErrors = soak.errors;
    soak.failures = soak.unexpected + soak.timeouts + (soak.requests === 0 ? 1 : 0);
    soak.rssIdleMiB = soakIdle;
    results.directSoak = soak;
  } else {
    results.soak = soak;
  }
  log(
    `    ${soak.requests} requests, failures ${soak.failures}, workerd RSS ${soak.rss.start.runtime.toFixed(0)} → ` +
      `${soak.rss.middle.runtime.toFixed(0)} → ${soak.rss.end.runtime.toFixed(0)} MiB`,
  );
}

/** Phase 4, the soak's control: workerd's own memory growth under load. */
async function runControlPhase(cfg, results) {
  if (!results.soak || !cfg.control) return;
  const seconds = Math.max(5, Math.round(cfg.soakSeconds / 3));
  log(`==> control: ${seconds} s against a Worker that only answers "ok" (workerd's own memory growth)`);
  results.control = await runControl({ seconds, connections: cfg.connections, runLoad });
  log(`    ${results.control.requests} requests, workerd RSS +${results.control.kibPerRequest.toFixed(2)} KiB per request`);
}

/**
 * The render breakdown and the fresh isolates (bench/render-breakdown.mjs):
 * their own builds, databases and servers; with --against, the same for
 * another checkout, alternating with this one.
 */
async function runRenderCostPhase(cfg, results) {
  if (cfg.only && !cfg.only.includes("render-cost")) return;
  results.renderCost = await measureRenderCost({ ...cfg.renderCost, against: cfg.against });
  const p50 = percentile([...results.renderCost.subjects[0].firstMs].sort((a, b) => a - b), 50);
  log(`    first image fetch: ${p50.toFixed(2)} ms of Worker CPU (p50 of ${cfg.renderCost.renders})`);
  const checkouts = [{ label: "this checkout", dir: ROOT }, ...(cfg.against ? [{ label: `before (${basename(cfg.against)})`, dir: cfg.against }] : [])];
  results.freshIsolates = await measureFreshIsolates({ checkouts, ...cfg.freshIsolates });
}

/** Phase 5: the Markdown table and the raw JSON; returns the number of failed requests. */
function writeReport(cfg, results) {
  const markdown = renderMarkdown(results);
  mkdirSync(dirname(cfg.out), { recursive: true });
  writeFileSync(cfg.out, markdown);
  writeFileSync(cfg.out.replace(/\.md$/, ".raw.json"), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${markdown}\n`);
  log(`results written to ${cfg.out} (${results.wallSeconds.toFixed(0)} s in all)`);
  const runs = [...results.scenarios, ...(results.isolatePair ?? []), ...(results.capacityPairs ?? []), ...(results.orderPairs ?? []), ...(results.orderPairsNoPrerender ?? []), ...(results.direct ?? []), ...Object.values(results.distance ?? {}).flat(), results.soak, results.directSoak, results.control];
  return runs.filter(Boolean).reduce((n, r) => n + r.failures, 0);
}

/** Stops every running server and removes the work directory on Ctrl-C / SIGTERM. */
function stopOnSignals(servers, work) {
  let interrupted = false;
  const onSignal = async (signal) => {
    if (interrupted) return;
    interrupted = true;
    log(`\n${signal}: stopping the bench servers…`);
    for (const s of servers) await s.stop().catch((e) => log(String(e)));
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

async function main(argv) {
  const { values: args } = parseCommandLine(argv, OPTIONS, { allowPositionals: false });
  if (args.help) return log(USAGE);
  const run = plan(settings(args));
  if (run.cfg.waitQuiet) await waitForQuiet();
  const wallStart = performance.now();
  const results = {
    mode: run.cfg.smoke ? "smoke" : run.cfg.only ? "partial" : "full",
    // What it was run with (the --out path left out): the report says how to repeat it.
    args: argv.filter((arg, i) => arg !== "--out" && !arg.startsWith("--out=") && argv[i - 1] !== "--out"),
    startedAt: new Date().toISOString(),
    settings: { ...run.cfg, out: undefined },
    machine: machine(),
    loadBefore: loadavg(),
    scenarios: [],
  };
  const work = mkdtempSync(join(tmpdir(), "museum-bench-"));
  const servers = new Set();
  let receiver;
  stopOnSignals(servers, work);
  try {
    measureBundle(run.cfg, work, results);
    const databases = await prepareDatabases(run, work, results);
    const setup = { ...databases, cfg: run.cfg, work, script: results.bundle.script, distanceScript: results.distanceScript };
    if (run.scenarios.some((s) => s.receiver)) {
      receiver = await startWebhookReceiver();
      setup.receiver = receiver;
    }
    for (const pass of serverPasses(run)) await runPass(pass, setup, results, servers);
    await runControlPhase(run.cfg, results);
    await runRenderCostPhase(run.cfg, results);
  } finally {
    await receiver?.close();
    for (const s of servers) await s.stop().catch((e) => log(`could not stop wrangler dev: ${e.message}`));
    rmSync(work, { recursive: true, force: true });
  }
  results.loadAfter = loadavg();
  results.wallSeconds = (performance.now() - wallStart) / 1000;
  const failures = writeReport(run.cfg, results);
  if (failures > 0) throw new Error(`${failures} failed requests (errors, timeouts or unexpected statuses)`);
}

/**
 * EXPLAIN QUERY PLAN of the list query exactly as the Worker sends it
 * (`eventsInWindowQuery` of src/events/statements.ts, through
 * tools/lib/statements.mjs), with a year's window in place of its parameters.
 */
function listQueryPlan(persistTo, today) {
  const { eventsInWindowQuery } = statements().events;
  if (typeof eventsInWindowQuery !== "function") return { error: "eventsInWindowQuery is not exported by src/events/statements.ts" };
  const query = eventsInWindowQuery({ startDate: today, endDate: addDays(today, 365), limit: 11, offset: 0 });
  return { sql: renderStatement(query), plan: explainQueryPlan(persistTo, query) };
}

await runMain(main, USAGE);
