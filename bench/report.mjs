// The results of bench/run.mjs as Markdown, with the budgets of
// docs/performance.md checked on ratios measured in the same run; and the
// writer that keeps what was measured when a phase fails.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { percentile } from "./load.mjs";
import { CARD_KINDS, WARMED_UP } from "./render.mjs";
import { PAIRS, SCENARIOS } from "./scenarios.mjs";

const f = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const mark = (pass) => (pass ? "pass" : "**MISS**");

/** The median; of an even count, the mean of the middle two. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const p = (xs, q) => percentile([...xs].sort((a, b) => a - b), q);

/** Requests per unit a pair compares: 1, or a side's sequence (a hold and its confirmation are one purchase). */
const perUnit = (r) => r.sequence ?? 1;

/** What a pair compares, per request (per sequence for a side that is one; p50 already is). */
const MEASURES = {
  latency: ["p50", (r) => r.p50],
  isolate: ["Worker CPU (the Worker's isolate)", (r) => r.isolateSamples / Math.max(1, r.requests / perUnit(r))],
  cpu: ["Worker CPU (the workerd process)", (r) => r.cpuMs.runtime * perUnit(r)],
};

/** A pair's rounds ([{ round, baseline, subject, ratios }]) in `runs`, and the medians of the ratios. */
function pairRatios(runs = [], pair) {
  const rounds = new Map();
  for (const r of runs) {
    const entry = rounds.get(r.round) ?? { round: r.round };
    if (r.id === pair.baseline) entry.baseline = r;
    if (r.id === pair.subject) entry.subject = r;
    rounds.set(r.round, entry);
  }
  const complete = [...rounds.values()].filter((e) => e.baseline && e.subject);
  for (const e of complete) e.ratios = Object.fromEntries(pair.measures.map((m) => [m, MEASURES[m][1](e.subject) / MEASURES[m][1](e.baseline)]));
  return { rounds: complete, medians: Object.fromEntries(pair.measures.map((m) => [m, median(complete.map((e) => e.ratios[m]))])) };
}

/** Slices of a fresh isolate's renders (1-based, inclusive); the last is the warm figure. */
const FRESH_SLICES = [
  { label: "render 1", from: 1, to: 1 },
  { label: "renders 2–10", from: 2, to: 10, budget: 5 },
  { label: "renders 11–40", from: 11, to: 40, budget: 2.5 },
  { label: "renders 41–60 (warm)", from: 41, to: 60 },
];
const sliceOf = (series, slice, measure = "cpuMs") => series.slice(slice.from - 1, slice.to).map((r) => r[measure]);
const medianOfRounds = (rounds, of) => median(Array.from({ length: rounds }, (_, round) => of(round)));
const cancelledRatio = (subject) => median(subject.pairs.map((pair) => pair.cancelled / pair.event));

/**
 * A warm first render against the --against checkout's: issue 38's budget
 * (qrcode-svg and resvg drawing the whole card again, where lean-qr's modules
 * were painted into the pixels).
 */
const RENDER_AGAINST_BUDGET = 1.25;

/** The ms of one profiler sample (bench/servers.mjs samples every 100 µs). */
const SAMPLE_MS = 0.1;

/** The profiled runs' CPU within named functions, per request: [{ pass, r, fn, what, budgetMs, ms }]. */
const cpuWithinRows = (side) =>
  Object.entries(side.pairs ?? {}).flatMap(([pass, runs]) => runs.flatMap((r) => (r.cpuWithin ?? []).map((c) => ({ pass, r, ...c, ms: (c.samples * SAMPLE_MS) / Math.max(1, r.requests) }))));

/** This checkout's warm renders against the before's: the general card's first renders in a warm isolate, each kind's warm slice of fresh isolates. */
function renderAgainst(results) {
  const out = [];
  const cost = results.renderCost;
  if (cost?.subjects.length === 2) {
    const [self, before] = cost.subjects;
    out.push({ kind: "general", where: "a warm isolate's first renders, fetched in turn", before: before.label, ratio: median(self.firstMs.map((ms, i) => ms / before.firstMs[i])) });
  }
  const fresh = results.freshIsolates;
  if (fresh?.subjects.length === 2) {
    const [self, before] = fresh.subjects;
    const warm = FRESH_SLICES.at(-1);
    for (const kind of CARD_KINDS) {
      const ratio = medianOfRounds(fresh.rounds, (round) => median(sliceOf(self.fresh[kind][round], warm)) / median(sliceOf(before.fresh[kind][round], warm)));
      if (Number.isFinite(ratio)) out.push({ kind, where: `fresh isolates' ${warm.label}`, before: before.label, ratio });
    }
  }
  return out;
}

/** Every budget check: { id, rule, value, pass }. */
export function checkBudgets(results) {
  const byId = new Map(results.scenarios.map((s) => [s.id, s]));
  const checks = [];
  const check = (id, rule, value, pass) => checks.push({ id, rule, value, pass });
  for (const r of results.scenarios) {
    const base = byId.get(r.db === "large" ? "static-100k" : "static");
    if (r.id === "qr-cached" && base) check(r.id, "p50 ≤ 1.2× static p50", `${f(r.p50 / base.p50)}×`, r.p50 / base.p50 <= 1.2);
    if (r.kind === "json" && base) check(r.id, "req/s ≥ 0.5× static", `${f(r.rps / base.rps)}×`, r.rps / base.rps >= 0.5);
    const list100 = byId.get("events-year-100");
    if (r.id === "events-year-100k" && list100) check(r.id, "p50 ≤ 2× the 100-event list", `${f(r.p50 / list100.p50)}×`, r.p50 / list100.p50 <= 2);
    if (r.id === "kiosk-buy-fetch" && byId.has("kiosk-buy") && byId.has("kiosk-fetch")) {
      const limit = byId.get("kiosk-buy").p50 + 1.2 * byId.get("kiosk-fetch").p50;
      check(r.id, "p50 ≤ buy-only p50 + 1.2× a cached image fetch", `${f(r.p50)} ms vs ${f(limit)} ms`, r.p50 <= limit);
    }
    check(r.id, "Worker CPU < 10 ms/req", `${f(r.cpuMs.runtime)} ms`, r.cpuMs.runtime < 10);
  }
  for (const pair of PAIRS) {
    const { rounds, medians } = pairRatios(results.pairs?.[pair.pass], pair);
    if (rounds.length === 0) continue;
    for (const m of pair.budgetOn ?? pair.measures) {
      const each = rounds.map((e) => f(e.ratios[m])).join(", ");
      check(pair.subject, `${MEASURES[m][0]} ≤ ${pair.budget}× ${pair.baseline}${pair.where ?? ""}`, `${f(medians[m])}×, the median of the rounds' ${each}`, medians[m] <= pair.budget);
    }
  }
  const rtt = results.settings.d1Rtt;
  for (const { id, near, far } of distancePairs(results)) {
    // Each of its round trips waits the distance once (a path with none, once at most).
    const trips = Math.max(1, near.roundTrips ?? 1);
    const limit = near.p50 + trips * rtt + 5;
    check(id, `p50 at D1 ${rtt} ms ≤ p50 at 0 ms + ${trips > 1 ? `${trips} × ` : ""}${rtt} + 5 ms`, `${f(far.p50)} ms vs ${f(limit)} ms`, far.p50 <= limit);
    const within = SCENARIOS.find((s) => s.id === id)?.p99Within;
    if (within) check(id, `p99 at D1 ${rtt} ms ≤ ${within.ms} ms (${within.what})`, `${f(far.p99)} ms`, far.p99 <= within.ms);
  }
  const cost = results.renderCost;
  if (cost) {
    const firstP50 = p(cost.subjects[0].firstMs, 50);
    check("render-first", "first render in a warm isolate ≤ 10 ms Worker CPU (p50)", `${f(firstP50)} ms`, firstP50 <= 10);
  }
  for (const { kind, where, before, ratio } of renderAgainst(results)) {
    check(`render-${kind}-against`, `${kind} card, ${where}: Worker CPU ≤ ${RENDER_AGAINST_BUDGET}× ${before}'s (median of the ratios)`, `${f(ratio)}×`, ratio <= RENDER_AGAINST_BUDGET);
  }
  for (const { pass, r, fn, what, budgetMs, ms } of cpuWithinRows(results)) {
    check(r.id, `${what} (${pass}, the isolate's samples within \`${fn}\`) < ${budgetMs} ms CPU a request`, `${f(ms, 3)} ms`, ms < budgetMs);
  }
  const fresh = results.freshIsolates;
  if (fresh) {
    const [self] = fresh.subjects;
    check("render-cancelled", "cancelled card ≤ 1.2× an event card (warm, fetched in turn, median of the pairs)", `${f(cancelledRatio(self))}×`, cancelledRatio(self) <= 1.2);
    const warm = FRESH_SLICES.at(-1);
    for (const slice of FRESH_SLICES.filter((s) => s.budget)) {
      for (const kind of CARD_KINDS) {
        const ratio = medianOfRounds(fresh.rounds, (round) => median(sliceOf(self.fresh[kind][round], slice)) / median(sliceOf(self.fresh[kind][round], warm)));
        // A short run (--smoke) has no warm slice to compare with.
        if (Number.isFinite(ratio)) check(`fresh-${kind}`, `fresh isolate, ${kind} card, ${slice.label}: Worker CPU ≤ ${slice.budget}× warm`, `${f(ratio)}×`, ratio <= slice.budget);
      }
    }
  }
  return checks;
}

/** Each hot path at D1 0 ms and at the run's distance. */
function distancePairs(results) {
  const far = new Map((results.distance?.[results.settings.d1Rtt] ?? []).map((r) => [r.id, r]));
  return (results.distance?.[0] ?? []).filter((r) => far.has(r.id)).map((near) => ({ id: near.id, title: near.title, near, far: far.get(near.id) }));
}

function headerSection(results) {
  const m = results.machine;
  const load = (xs) => (xs ? xs.map((x) => f(x)).join(" / ") : "–");
  return [
    `# Museum API benchmark (${results.mode} run)`,
    "",
    `Run ${results.startedAt} on commit ${m.commit}; ${f(results.wallSeconds, 0)} s in all. Generated by ` +
      `\`npm run bench${results.args.length ? ` -- ${results.args.join(" ")}` : ""}\` (bench/run.mjs); method in docs/performance.md.`,
    "",
    `Machine: ${m.cpus} × ${m.model}, ${f(m.memGiB, 1)} GiB RAM; ${m.os}; Node ${m.node}, wrangler ${m.wrangler}, autocannon ${m.autocannon}. ` +
      `Load average (1/5/15 min) before: ${load(results.loadBefore)}, after: ${load(results.loadAfter)}.`,
    ...(results.bundle ? ["", `Bundle (\`wrangler deploy --dry-run\`): ${f(results.bundle.raw / 1024, 0)} KiB, ${f(results.bundle.gzip / 1024, 0)} KiB gzip.`] : []),
  ];
}

function scenarioSection(results, checks) {
  if (results.scenarios.length === 0) return [];
  const s = results.settings;
  const lines = [
    "",
    "## Through `wrangler dev`",
    "",
    `Each scenario: a ${s.warmup} s warm-up, then ${s.duration} s at ${s.connections} connections (kiosk and gate: one). ` +
      "*Worker CPU*: the workerd process that runs the Worker and its local D1, per request; *proxy CPU*: wrangler's dev proxy and Node process. " +
      "*Other cores*: what other programs kept busy meanwhile.",
    "",
    "| Scenario | Conn. | Requests | req/s | p50 ms | p99 ms | Failures | Worker CPU ms | Proxy CPU ms | Other cores | Budgets |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
  ];
  for (const r of results.scenarios) {
    const budgets = checks.filter((c) => c.id === r.id && !c.rule.includes(" at D1 ")).map((c) => `${c.rule}: ${c.value} ${mark(c.pass)}`);
    lines.push(`| ${r.title} | ${r.connections} | ${r.requests} | ${f(r.rps, 0)} | ${f(r.p50)} | ${f(r.p99)} | ${r.failures} | ${f(r.cpuMs.runtime)} | ${f(r.cpuMs.proxy + r.cpuMs.wrangler)} | ${f(r.otherCores)} | ${budgets.join("<br>")} |`);
  }
  return lines;
}

function pairSections(results, on = "") {
  const lines = [];
  for (const pair of PAIRS) {
    const { rounds, medians } = pairRatios(results.pairs?.[pair.pass], pair);
    if (rounds.length === 0) continue;
    lines.push("", `## ${pair.subject} against ${pair.baseline}${pair.where ?? ""}${on}`, "", pair.method, "");
    lines.push(`| Round | p50 ms | Worker CPU ms | ${pair.measures.map((m) => `× (${MEASURES[m][0]})`).join(" | ")} |`, `|--:|--:|--:|${pair.measures.map(() => "--:|").join("")}`);
    for (const e of rounds) {
      lines.push(`| ${e.round} | ${f(e.baseline.p50)} → ${f(e.subject.p50)} | ${f(e.baseline.cpuMs.runtime)} → ${f(e.subject.cpuMs.runtime)} | ${pair.measures.map((m) => f(e.ratios[m])).join(" | ")} |`);
    }
    const others = median(rounds.flatMap((e) => [e.baseline.otherCores, e.subject.otherCores]));
    lines.push("", `Medians of the rounds: ${pair.measures.map((m) => `${MEASURES[m][0]} ${f(medians[m])}×`).join(", ")}. Other programs kept a median of ${f(others)} cores busy.`);
  }
  return lines;
}

function distanceSection(results) {
  const pairs = distancePairs(results);
  if (pairs.length === 0) return [];
  const rtt = results.settings.d1Rtt;
  return [
    "",
    `## D1 at a distance: round trips, and each hot path at 0 and ${rtt} ms`,
    "",
    "The distance bundle (bench/distance-worker.mjs around the built Worker) through `wrangler dev`, one connection. *D1 round trips*: counted for one request (a kiosk's whole sequence), the login remembered.",
    "",
    `| Scenario | D1 round trips | p50 ms @0 | p99 ms @0 | p50 ms @${rtt} | p99 ms @${rtt} | p50 Δ ms |`,
    "|---|--:|--:|--:|--:|--:|--:|",
    ...pairs.map(({ title, near, far }) => `| ${title} | ${near.roundTrips} | ${f(near.p50)} | ${f(near.p99)} | ${f(far.p50)} | ${f(far.p99)} | ${f(far.p50 - near.p50)} |`),
  ];
}

function cpuWithinSection(results) {
  const rows = cpuWithinRows(results);
  if (rows.length === 0) return [];
  return [
    "",
    "## CPU within functions (the Worker's isolate under V8's profiler)",
    "",
    "Miniflare directly, one connection: the isolate's busy samples (100 µs) whose stack holds the function, per request.",
    "",
    "| Pass | Scenario | Requests | Function | CPU ms a request | the whole request, isolate ms | Budget |",
    "|---|---|--:|---|--:|--:|---|",
    ...rows.map(({ pass, r, fn, what, budgetMs, ms }) => `| ${pass} | ${r.title} | ${r.requests} | \`${fn}\` (${what}) | ${f(ms, 3)} | ${f((r.isolateSamples * SAMPLE_MS) / Math.max(1, r.requests))} | < ${budgetMs} ms ${mark(ms < budgetMs)} |`),
  ];
}

function renderSections(results) {
  const lines = [];
  const cost = results.renderCost;
  if (cost) {
    const row = (title, value) => `| ${title} | ${cost.subjects.map(value).join(" | ")} |`;
    lines.push(
      "",
      "## Ticket images: a first render in a warm isolate",
      "",
      `\`GET /v1.1/tickets/{id}/qr\` of tickets never rendered, Miniflare directly; Worker CPU of the workerd process, all threads. ${cost.warmups} fetches of tier-up, then ${cost.renders} measured, alternating between the checkouts.`,
      "",
      `| | ${cost.subjects.map((s) => s.label).join(" | ")} |`,
      `|---|${cost.subjects.map(() => "--:|").join("")}`,
      row("first fetch, p10 / p50 / p90 ms", (s) => `${f(p(s.firstMs, 10))} / **${f(p(s.firstMs, 50))}** / ${f(p(s.firstMs, 90))}`),
      row("first fetch of a fresh isolate ms", (s) => f(s.freshMs, 1)),
      row("cached fetch, median ms", (s) => f(p(s.cachedMs, 50))),
    );
  }
  const fresh = results.freshIsolates;
  if (fresh) {
    const subjects = fresh.subjects;
    lines.push(
      "",
      "## Ticket images: fresh isolates",
      "",
      `Each round (${fresh.rounds}) starts a fresh isolate per card kind and checkout and fetches ${fresh.renders} images never rendered. Medians of the slice's renders, Worker CPU / latency, ms.`,
      "",
      `| card | slice | ${subjects.map((s) => s.label).join(" | ")} |`,
      `|---|---|${subjects.map(() => "--:|").join("")}`,
    );
    for (const kind of [...CARD_KINDS, WARMED_UP]) {
      for (const slice of FRESH_SLICES) {
        const cell = (s) => {
          const all = (measure) => median(s.fresh[kind].flatMap((series) => sliceOf(series, slice, measure)));
          return `${f(all("cpuMs"), 1)} / ${f(all("latencyMs"), 1)}`;
        };
        lines.push(`| ${kind} | ${slice.label} | ${subjects.map(cell).join(" | ")} |`);
      }
    }
    const sale = (s, measure) => f(median(s.sales.map((r) => r[measure])));
    const against = renderAgainst(results);
    if (against.length > 0) lines.push("", `Warm renders, this checkout / ${against[0].before}, the medians of the alternated ratios: ${against.map((a) => `${a.kind} (${a.where}) ${f(a.ratio)}×`).join("; ")}.`);
    lines.push(
      "",
      `A sale with its pre-render (warm isolate, the CPU read once the pre-render is done), medians: ${subjects.map((s) => `${s.label} ${sale(s, "cpuMs")} ms CPU, ${sale(s, "latencyMs")} ms latency`).join("; ")}.`,
      `A cancelled card over an event card, fetched in turn: ${subjects.map((s) => `${s.label} ${f(cancelledRatio(s))}×`).join("; ")}.`,
    );
  }
  return lines;
}

/**
 * This checkout against the --against one, scenario by scenario: medians of
 * each side's rounds, and the median of the rounds' ratios (this / before).
 */
function beforeSection(results) {
  const before = results.before;
  if (!before) return [];
  const runs = (side) => [...side.scenarios.map((r) => ["wrangler dev", r]), ...Object.entries(side.pairs).flatMap(([pass, rs]) => rs.map((r) => [pass, r]))];
  const key = (pass, r) => `${pass}\u0000${r.id}`;
  const theirs = new Map();
  for (const [pass, r] of runs(before)) theirs.set(`${key(pass, r)}\u0000${r.round}`, r);
  const rows = new Map();
  for (const [pass, r] of runs(results)) {
    const other = theirs.get(`${key(pass, r)}\u0000${r.round}`);
    if (!other) continue;
    const row = rows.get(key(pass, r)) ?? { pass, title: r.title, pairs: [] };
    row.pairs.push([other, r]);
    rows.set(key(pass, r), row);
  }
  const isolateMs = (r) => (r.isolateSamples === undefined ? NaN : (r.isolateSamples * SAMPLE_MS) / Math.max(1, r.requests));
  const cell = (row, of) => {
    const b = median(row.pairs.map(([x]) => of(x)));
    const a = median(row.pairs.map(([, y]) => of(y)));
    return `${f(b)} | ${f(a)} | ${f(median(row.pairs.map(([x, y]) => of(y) / of(x))))}×`;
  };
  return [
    "",
    `## This checkout against ${before.label}`,
    "",
    "Each scenario on both, in turn, the order swapped every round; medians of the rounds, and the median of the rounds' ratios (this / before). " +
      "*Worker CPU*: the workerd process per request; *isolate*: the Worker's isolate under V8's profiler (100 µs samples), where profiled.",
    "",
    "| Pass | Scenario | Rounds | p50 ms before | this | × | Worker CPU ms before | this | × | isolate ms before | this | × |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ...[...rows.values()].map((row) => `| ${row.pass} | ${row.title} | ${row.pairs.length} | ${cell(row, (r) => r.p50)} | ${cell(row, (r) => r.cpuMs.runtime)} | ${cell(row, isolateMs)} |`),
    ...pairSections(before, ` (${before.label})`),
  ];
}

/** All failed requests of the run. */
function failedRequests(results) {
  const runs = [...results.scenarios, ...Object.values(results.pairs ?? {}).flat(), ...Object.values(results.distance ?? {}).flat()];
  return runs.reduce((n, r) => n + r.failures, 0) + (results.before ? failedRequests(results.before) : 0);
}

export function renderMarkdown(results) {
  const checks = checkBudgets(results);
  const missed = checks.filter((c) => !c.pass);
  const lines = [
    ...headerSection(results),
    ...(results.failure ? ["", `**The run failed** in ${results.failure.phase}: ${results.failure.message}. What was measured before is below.`] : []),
    ...scenarioSection(results, checks),
    ...pairSections(results),
    ...beforeSection(results),
    ...distanceSection(results),
    ...cpuWithinSection(results),
    ...renderSections(results),
    ...(results.queryPlan ? ["", "## The year list's query plan (100,000 events)", "", "```", ...results.queryPlan, "```"] : []),
    "",
    "## Budgets",
    "",
    `${checks.length - missed.length} of ${checks.length} checks pass; failed requests: ${failedRequests(results)}.`,
    ...missed.map((c) => `- ${c.id}: ${c.rule}: ${c.value}`),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * Runs the phases (`[name, async () => …]`) in order, each adding to
 * `results`. A phase that throws ends the run: its name and message go into
 * `results.failure`, and what the earlier phases measured is kept.
 */
export async function runPhases(phases, results) {
  for (const [phase, run] of phases) {
    try {
      await run();
    } catch (error) {
      results.failure = { phase, message: error instanceof Error ? error.message : String(error) };
      return;
    }
  }
}

/** Writes the Markdown and the raw JSON; returns what makes the run fail (a phase's error, failed requests), or undefined. */
export function writeResults(out, results) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, renderMarkdown(results));
  writeFileSync(out.replace(/\.md$/, ".raw.json"), `${JSON.stringify(results, null, 2)}\n`);
  if (results.failure) return `${results.failure.phase} failed: ${results.failure.message}`;
  const failures = failedRequests(results);
  return failures > 0 ? `${failures} failed requests (errors, timeouts or unexpected statuses)` : undefined;
}
