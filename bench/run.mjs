#!/usr/bin/env node
// `npm run bench`: the performance benchmark of the Museum API, its budgets
// and method in docs/performance.md. It builds the Worker as a deploy would
// (`wrangler deploy --dry-run`), seeds throw-away local D1s, serves the built
// files (`wrangler dev`, or Miniflare directly for the alternating pairs and
// the render phases), and measures them over HTTP with autocannon while
// reading the servers' CPU time from /proc (Linux only).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { basicAuthorization } from "../tools/lib/accounts.mjs";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { addDays, museumTimeZone, todayIn } from "../tools/lib/dates.mjs";
import { throwawaySecrets } from "../tools/lib/local-state.mjs";
import { statements } from "../tools/lib/statements.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";
import { buildDistanceWorker, buildWorker } from "./build.mjs";
import { runLoad } from "./load.mjs";
import { measureRenders } from "./render.mjs";
import { runPhases, writeResults } from "./report.mjs";
import { SCENARIOS } from "./scenarios.mjs";
import { capacityDays, dayPlaces, explainQueryPlan, nextOpenDay, seedDatabase } from "./seed.mjs";
import { DirectMiniflare, WranglerDev, machineBusySeconds, writeConfigWithoutQueueConsumers } from "./servers.mjs";

const USAGE = `usage: npm run bench [-- [--smoke] [--only id,id] [--duration S] [--connections N] [--d1-rtt MS]
                        [--rounds N] [--against DIR] [--out FILE] [--wait-quiet]]
  --smoke        a few seconds per scenario, small seeds; the table goes to $TMPDIR; fails only
                 on errors or unexpected statuses, never on timings
  --only         these scenarios (render-cost: the render phases): ${SCENARIOS.map((s) => s.id).join(", ")}, render-cost
  --d1-rtt MS    the hot paths again with every D1 round trip delayed by 0 and by MS (default 25; 0 skips)
  --rounds N     rounds of each alternating pair (default 20; the order pairs 10)
  --against DIR  another checkout with its node_modules: the "before" of the render phases and of
                 every scenario but the distance passes', served beside this checkout's, the two
                 alternating scenario by scenario (A B, then B A the next round)
  --out FILE     default bench/results/latest.md
The CPU meter reads /proc: Linux only.`;

const OPTIONS = Object.fromEntries(
  ["smoke", "wait-quiet", "help"].map((k) => [k, { type: "boolean" }]).concat(["d1-rtt", "only", "duration", "connections", "out", "against", "rounds"].map((k) => [k, { type: "string" }])),
);

/** The run's settings from its arguments. */
function settings(args) {
  const smoke = args.smoke === true;
  const num = (name, fallback, min = 1) => {
    const n = args[name] === undefined ? fallback : Number(args[name]);
    if (!Number.isFinite(n) || n < min) throw new UsageError(`--${name} must be a number, at least ${min}`);
    return n;
  };
  const only = args.only?.split(",").map((s) => s.trim()).filter(Boolean);
  const known = new Set([...SCENARIOS.map((s) => s.id), "render-cost"]);
  for (const id of only ?? []) if (!known.has(id)) throw new UsageError(`unknown scenario ${id}`);
  const against = args.against === undefined ? undefined : resolve(args.against);
  if (against && !["wrangler.toml", "node_modules"].every((name) => existsSync(join(against, name)))) {
    throw new UsageError("--against needs a checkout of this project with its node_modules");
  }
  return {
    smoke,
    only,
    against,
    duration: num("duration", smoke ? 2 : 10),
    distanceDuration: num("duration", smoke ? 2 : 5),
    warmup: smoke ? 0.5 : 2,
    connections: num("connections", 10),
    d1Rtt: num("d1-rtt", 25, 0),
    admissions: smoke ? 10 : 150,
    eventCreates: smoke ? 20 : 400,
    largeEvents: smoke ? 2_000 : 100_000,
    pairRounds: num("rounds", smoke ? 1 : 20),
    pairSales: smoke ? 20 : 300,
    orderPairRounds: num("rounds", smoke ? 1 : 10),
    orderPairSales: smoke ? 10 : 100,
    calendarReads: smoke ? 20 : 300,
    holdPairSales: smoke ? 10 : 150,
    fullDayTickets: 10_000,
    render: smoke ? { renders: 5, warmups: 5, rounds: 1, freshRenders: 12, sales: 5, pairs: 5 } : { renders: 40, warmups: 40, rounds: 3, freshRenders: 60, sales: 40, pairs: 40 },
    out: args.out ?? (smoke ? join(tmpdir(), "museum-bench-smoke.md") : join(ROOT, "bench", "results", "latest.md")),
    waitQuiet: args["wait-quiet"] === true,
  };
}

function machine() {
  const require = createRequire(join(ROOT, "package.json"));
  const version = (pkg) => require(`${pkg}/package.json`).version;
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    if (execFileSync("git", ["status", "--porcelain", "--", "src", "wrangler.toml", "package.json"], { cwd: ROOT, encoding: "utf8" }).trim()) commit += " + uncommitted changes";
  } catch {
    // not a git checkout
  }
  return {
    cpus: cpus().length,
    model: /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model,
    memGiB: totalmem() / 2 ** 30,
    os: /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? process.platform,
    node: process.version,
    wrangler: version("wrangler"),
    autocannon: createRequire(import.meta.url)("autocannon/package.json").version,
    commit,
  };
}

/** Fetches once and checks the status: a clear message beats a table of errors. */
async function probe(base, request, expect) {
  const res = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const body = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${request.method} ${request.path} answered ${res.status}, expected ${expect.join("/")}: ${body.slice(0, 500)}`);
  request.onResponse?.(res.status, body, {});
  return res;
}

/**
 * The server's CPU per request by role, and the cores other programs kept
 * busy meanwhile (the machine's busy time less ours), around `work()`.
 */
async function metered(server, work) {
  const before = server.cpuSeconds();
  const machineBefore = machineBusySeconds();
  const self = process.cpuUsage();
  const load = await work();
  const after = server.cpuSeconds();
  const spent = Object.fromEntries(Object.keys(after).map((role) => [role, after[role] - before[role]]));
  const { user, system } = process.cpuUsage(self);
  const ours = Object.values(spent).reduce((s, v) => s + v, (user + system) / 1e6);
  const cpuMs = Object.fromEntries(Object.entries(spent).map(([role, s]) => [role, (s * 1000) / Math.max(1, load.requests)]));
  return { ...load, cpuMs, otherCores: Math.max(0, (machineBusySeconds() - machineBefore - ours) / load.seconds) };
}

async function runScenario(server, scenario, ctx, cfg) {
  const { base } = server;
  const connections = scenario.connections ?? cfg.connections;
  const { expect, sequence } = scenario;
  const firstOf = (requests) => {
    const r = { headers: {}, ...requests[0] };
    return r.setupRequest ? r.setupRequest({ ...r }) : r;
  };
  await probe(base, firstOf(scenario.requests(ctx)), expect);
  const amount = scenario.mode === "amount";
  const warm = await runLoad({ base, connections, ...(amount ? { amount: scenario.warmup } : { duration: cfg.warmup }), requests: scenario.requests(ctx), expect, sequence });
  const stopProfile = await server.profiler?.start(scenario.cpuWithin?.map((c) => c.fn));
  const load = await metered(server, () =>
    runLoad({ base, connections, ...(amount ? { amount: scenario.amount(cfg), rate: cfg.rate } : { duration: cfg.duration }), requests: scenario.requests(ctx), expect, sequence }),
  );
  if (stopProfile) {
    const { busy, within } = await stopProfile();
    Object.assign(load, { isolateSamples: busy, ...(scenario.cpuWithin ? { cpuWithin: scenario.cpuWithin.map((c) => ({ ...c, samples: within[c.fn] })) } : {}) });
  }
  // A scenario that got no answer at all failed, whatever else it reports.
  const failures = load.unexpected + load.errors + warm.unexpected + warm.errors + (load.requests === 0 ? 1 : 0);
  return { id: scenario.id, title: scenario.title, db: scenario.db, kind: scenario.kind, connections, sequence: sequence ?? 1, ...load, failures };
}

/** D1 round trips of one pass through a scenario's requests, as the distance bundle counts them; the second pass, its login remembered. */
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

/** The server passes: one server each, its scenarios in order (a pair's: round after round, alternating). */
function serverPasses(cfg, scenarios) {
  const of = (test) => scenarios.filter(test);
  const pair = (pass) => ({ db: "small", direct: true, connections: 1, ...pass });
  return [
    { name: "wrangler dev, 100 events", db: "small", list: of((s) => s.db === "small" && !["webhooks", "capacity", "order-pair", "calendar-pair", "hold-pair", "octo-pair"].includes(s.kind)) },
    pair({ name: "gate, profiled", profile: true, list: of((s) => s.cpuWithin) }),
    pair({ name: "webhooks", profile: true, rate: 100, rounds: cfg.pairRounds, list: of((s) => s.kind === "webhooks") }),
    pair({ name: "capacity", db: "capacity", profile: true, vars: { PRERENDER_TICKET_IMAGES: "false" }, rate: 100, rounds: cfg.pairRounds, list: of((s) => s.kind === "capacity") }),
    // A few sales a second, so each pre-render is done before the next sale; at that pace a profiler's sampling would outweigh the sales.
    ...[true, false].map((on) =>
      pair({ name: on ? "orders" : "ordersNoPrerender", vars: { PRERENDER_TICKET_IMAGES: String(on) }, rate: 10, rounds: cfg.orderPairRounds, list: of((s) => s.kind === "order-pair") }),
    ),
    pair({ name: "calendar", rate: 100, rounds: cfg.pairRounds, list: of((s) => s.kind === "calendar-pair") }),
    pair({ name: "holds", profile: true, vars: { PRERENDER_TICKET_IMAGES: "false" }, rate: 100, rounds: cfg.pairRounds, list: of((s) => s.kind === "hold-pair") }),
    pair({ name: "octo", profile: true, vars: { PRERENDER_TICKET_IMAGES: "false" }, rate: 100, rounds: cfg.pairRounds, list: of((s) => s.kind === "octo-pair") }),
    { name: "wrangler dev, 100,000 events", db: "large", list: of((s) => s.db === "large") },
    ...(cfg.d1Rtt > 0 ? [0, cfg.d1Rtt] : []).map((rtt) => ({ name: `distance ${rtt}`, db: "small", distance: rtt, connections: 1, duration: cfg.distanceDuration, list: of((s) => s.hot) })),
  ].filter((pass) => pass.list.length > 0);
}

/** Bench-only: webhook subscriptions may point at loopback. */
const BENCH_VARS = { WEBHOOK_ALLOW_LOOPBACK: "true" };

/** A pass's server for one side (this checkout, or the --against one). */
function serverFor(pass, setup, side) {
  const persistTo = join(setup.work, `${side.prefix}d1-${pass.db}`);
  if (pass.direct) {
    const config = writeConfigWithoutQueueConsumers(side.dir, join(setup.work, `${side.prefix}no-consumer.toml`));
    return new DirectMiniflare({ script: side.script, persistTo, secrets: setup.secrets, vars: { ...BENCH_VARS, ...pass.vars }, config, inspect: pass.profile });
  }
  // wrangler dev serves the script with this checkout's wrangler.toml: the before's must be the same.
  if (side.prefix && readFileSync(join(side.dir, "wrangler.toml"), "utf8") !== readFileSync(join(ROOT, "wrangler.toml"), "utf8")) {
    throw new Error(`${side.label}: its wrangler.toml differs from this checkout's; wrangler dev would serve it with this one's`);
  }
  return new WranglerDev({ script: pass.distance === undefined ? side.script : setup.distanceScript, persistTo, envFile: setup.envFile, vars: { ...BENCH_VARS, ...(pass.distance === undefined ? {} : { BENCH_D1_RTT_MS: String(pass.distance) }) } });
}

/** What a side's scenarios need of its database and server. */
async function contextFor(pass, setup, side, server) {
  const db = side.dbs[pass.db];
  const timeZone = await museumTimeZone();
  const ctx = {
    days: capacityDays(setup.today, pass.rounds ?? 1),
    auth: basicAuthorization(db.account.name, db.account.secret),
    gateAuth: basicAuthorization(db.gate.name, db.gate.secret),
    // The reseller's two doors: /v1.1 (Basic) and OCTO (its API key); none in a checkout from before OCTO.
    ...(db.reseller ? { resellerAuth: basicAuthorization(db.reseller.name, db.reseller.secret), octoAuth: `Bearer ${db.reseller.key}` } : {}),
    // Read at each use: a run may cross midnight in the museum's time zone.
    get today() {
      return todayIn(timeZone);
    },
    saleDate: nextOpenDay(addDays(setup.today, 1)),
    eventIds: db.eventIds,
    runId: randomBytes(4).toString("hex"),
    cached: db.ticketIds[0],
  };
  if (db.ticketIds.length > 0) ctx.etag = (await probe(server.base, { method: "GET", path: `/v1.1/tickets/${ctx.cached}/qr`, headers: { Authorization: ctx.auth } }, [200])).headers.get("etag");
  return ctx;
}

/**
 * One pass on each side (the distance passes: this checkout only), the
 * servers side by side; each scenario runs on both in turn, the order
 * swapped every round, so the machine's changing load falls on both alike.
 */
async function runPass(pass, setup, results) {
  const { cfg } = setup;
  const sides = pass.distance === undefined ? setup.sides : setup.sides.slice(0, 1);
  const running = [];
  try {
    for (const side of sides) {
      const server = serverFor(pass, setup, side);
      setup.running.add(server);
      log(`==> ${pass.name}: starting the server (${side.label})`);
      await server.start();
      const into = pass.distance !== undefined ? ((side.results.distance ??= {})[pass.distance] = []) : pass.direct ? (side.results.pairs[pass.name] = []) : side.results.scenarios;
      running.push({ side, server, into, ctx: await contextFor(pass, setup, side, server) });
    }
    const scenarioCfg = { ...cfg, connections: pass.connections ?? cfg.connections, duration: pass.duration ?? cfg.duration, rate: pass.rate };
    const rounds = pass.rounds ?? 1;
    for (let round = 1; round <= rounds; round += 1) {
      const inOrder = round % 2 === 1;
      for (const scenario of inOrder ? pass.list : [...pass.list].reverse()) {
        for (const { side, server, into, ctx } of inOrder ? running : [...running].reverse()) {
          const on = running.length > 1 ? `, ${side.label}` : "";
          if (scenario.reseller && !ctx.resellerAuth) {
            log(`==> ${scenario.id} (${pass.name}${on}): skipped, this checkout has no OCTO`);
            continue;
          }
          log(`==> ${scenario.id} (${pass.name}${rounds > 1 ? `, round ${round} of ${rounds}` : ""}${on}): ${scenario.title}`);
          const count = scenario.mode === "amount" ? 1 + scenario.warmup + scenario.amount(scenarioCfg) + 2 * scenario.requests(ctx).length : undefined;
          const env = { base: server.base, ctx, count };
          await scenario.prepare?.(env);
          const r = await runScenario(server, scenario, ctx, scenarioCfg);
          if (pass.distance !== undefined) r.roundTrips = await measureRoundTrips(server.base, scenario, ctx);
          await scenario.cleanup?.(env);
          into.push({ ...r, round });
          log(`    ${r.requests} requests, p50 ${r.p50.toFixed(2)} ms, failures ${r.failures}, Worker CPU ${r.cpuMs.runtime.toFixed(2)} ms/req`);
        }
      }
    }
  } finally {
    for (const { server } of running) {
      setup.running.delete(server);
      await server.stop();
    }
  }
}

/** The throw-away databases this run's passes need, and the Worker's secrets (.dev.vars is never read). */
async function prepareDatabases(cfg, passes, setup, results) {
  setup.today = todayIn(await museumTimeZone());
  setup.secrets = throwawaySecrets();
  setup.envFile = join(setup.work, "bench.env");
  writeFileSync(setup.envFile, Object.entries(setup.secrets).map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
  for (const side of setup.sides) {
    // The before serves no distance pass.
    const needs = (db) => passes.some((p) => p.db === db && (side === setup.sides[0] || p.distance === undefined));
    const seed = (db, options) => (side.dbs[db] = seedDatabase({ checkout: side.dir, persistTo: join(setup.work, `${side.prefix}d1-${db}`), today: setup.today, ...options }));
    side.dbs = {};
    if (needs("small")) seed("small", { events: 100, tickets: 1 });
    if (needs("large")) {
      log(`==> seeding ${cfg.largeEvents.toLocaleString("en")} events (${side.label})`);
      seed("large", { events: cfg.largeEvents, tickets: 0 });
      if (side === setup.sides[0]) {
        const query = statements().events.eventsInWindowQuery({ startDate: setup.today, endDate: addDays(setup.today, 365), limit: 11, offset: 0 });
        results.queryPlan = explainQueryPlan(join(setup.work, "d1-large"), query);
      }
    }
    if (needs("capacity")) {
      const { full } = capacityDays(setup.today, cfg.pairRounds);
      seed("capacity", { events: 100, tickets: 0, dayTickets: { date: full, count: cfg.fullDayTickets } });
      // The sale's guard reads the counter: the full day is full only if the triggers counted every row.
      const places = dayPlaces(join(setup.work, `${side.prefix}d1-capacity`), full);
      if (places.counter !== cfg.fullDayTickets || places.tickets !== cfg.fullDayTickets) throw new Error(`${side.label}: the full day holds ${places.tickets} tickets, its counter says ${places.counter}`);
    }
  }
}

async function main(argv) {
  const { values: args } = parseCommandLine(argv, OPTIONS, { allowPositionals: false });
  if (args.help) return log(USAGE);
  const cfg = settings(args);
  while (cfg.waitQuiet && loadavg()[0] > 1.5) {
    log(`load average ${loadavg()[0].toFixed(2)} > 1.5: waiting for a quiet machine…`);
    await new Promise((done) => setTimeout(done, 15_000));
  }
  const wanted = (id) => !cfg.only || cfg.only.includes(id);
  const passes = serverPasses(cfg, SCENARIOS.filter((s) => wanted(s.id)));
  const started = performance.now();
  const results = {
    mode: cfg.smoke ? "smoke" : cfg.only ? "partial" : "full",
    args: argv.filter((arg, i) => arg !== "--out" && !arg.startsWith("--out=") && argv[i - 1] !== "--out"),
    startedAt: new Date().toISOString(),
    settings: { ...cfg, out: undefined },
    machine: machine(),
    loadBefore: loadavg(),
    scenarios: [],
    pairs: {},
  };
  const setup = { cfg, work: mkdtempSync(join(tmpdir(), "museum-bench-")), running: new Set() };
  const checkouts = [{ label: "this checkout", dir: ROOT }, ...(cfg.against ? [{ label: `before (${basename(cfg.against)})`, dir: cfg.against }] : [])];
  setup.sides = [
    { ...checkouts[0], prefix: "", results },
    ...(cfg.against && passes.some((p) => p.distance === undefined) ? [{ ...checkouts[1], prefix: "before-", results: (results.before = { label: checkouts[1].label, scenarios: [], pairs: {} }) }] : []),
  ];
  const stopAll = async () => {
    for (const server of setup.running) await server.stop().catch((error) => log(`could not stop a server: ${error.message}`));
    rmSync(setup.work, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void stopAll().then(() => process.exit(130)));
  try {
    await runPhases(
      [
        ["build", () => {
          log("==> building the Worker (wrangler deploy --dry-run)");
          results.bundle = buildWorker(ROOT, join(setup.work, "dist"));
          setup.script = setup.sides[0].script = results.bundle.script;
          for (const side of setup.sides.slice(1)) side.script = buildWorker(side.dir, join(setup.work, `${side.prefix}dist`)).script;
          if (passes.some((p) => p.distance !== undefined)) setup.distanceScript = buildDistanceWorker(ROOT, dirname(setup.script), join(setup.work, "dist-distance"));
        }],
        ["seeding", () => prepareDatabases(cfg, passes, setup, results)],
        ...passes.map((pass) => [pass.name, () => runPass(pass, setup, results)]),
        ...(wanted("render-cost") ? [["render phases", () => measureRenders({ checkouts, work: setup.work, today: setup.today, ...cfg.render }, results)]] : []),
      ],
      results,
    );
  } finally {
    await stopAll();
  }
  results.loadAfter = loadavg();
  results.wallSeconds = (performance.now() - started) / 1000;
  const failed = writeResults(cfg.out, results);
  process.stdout.write(readFileSync(cfg.out, "utf8"));
  log(`results written to ${cfg.out} (${results.wallSeconds.toFixed(0)} s in all)`);
  if (failed) throw new Error(failed);
}

await runMain(main, USAGE);
