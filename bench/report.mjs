// Renders the results of bench/run.mjs as Markdown, with the budgets of
// issue 6 checked (ratios measured in the same run).
import { percentile } from "./load.mjs";
import { CAPACITY_PAIRS, ORDER_LINES, ORDER_PAIRS } from "./scenarios.mjs";

const f = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const mark = (pass) => (pass ? "pass" : "**MISS**");

/** The static baseline measured on the same server (database) as `r`. */
function baselineFor(results, r) {
  const byId = new Map(results.scenarios.map((s) => [s.id, s]));
  return r.db === "large" ? byId.get("static-100k") ?? byId.get("static") : byId.get("static");
}

/** Every budget check: { id, rule, value, pass }. */
export function checkBudgets(results) {
  const byId = new Map(results.scenarios.map((s) => [s.id, s]));
  const checks = [];
  for (const r of results.scenarios) {
    const base = baselineFor(results, r);
    if (r.id === "qr-cached" && base) {
      const ratio = r.p50 / base.p50;
      checks.push({ id: r.id, rule: "p50 ≤ 1.2× static p50", value: `${f(ratio, 2)}×`, pass: ratio <= 1.2 });
    }
    if (r.kind === "json" && base) {
      const ratio = r.rps / base.rps;
      checks.push({ id: r.id, rule: "req/s ≥ 0.5× static", value: `${f(ratio, 2)}×`, pass: ratio >= 0.5 });
    }
    if (r.id === "events-year-100k" && byId.has("events-year-100")) {
      const ratio = r.p50 / byId.get("events-year-100").p50;
      checks.push({ id: r.id, rule: "p50 ≤ 2× the 100-event list", value: `${f(ratio, 2)}×`, pass: ratio <= 2 });
    }
    if (r.id === "kiosk-buy-fetch" && byId.has("kiosk-buy") && byId.has("kiosk-fetch")) {
      const limit = byId.get("kiosk-buy").p50 + 1.2 * byId.get("kiosk-fetch").p50;
      checks.push({
        id: r.id,
        rule: "p50 ≤ buy-only p50 + 1.2× a cached image fetch",
        value: `${f(r.p50, 2)} ms vs ${f(limit, 2)} ms`,
        pass: r.p50 <= limit,
      });
    }
    if (r.kind !== "qr-first") {
      checks.push({ id: r.id, rule: "Worker CPU < 10 ms/req", value: `${f(r.cpuMs.runtime, 2)} ms`, pass: r.cpuMs.runtime < 10 });
    }
  }
  return [
    ...checks,
    ...webhookChecks(results),
    ...pairChecks(results.capacityPairs, CAPACITY_PAIRS, CAPACITY_MEASURES),
    ...pairChecks(results.orderPairsNoPrerender, ORDER_PAIRS, ORDER_MEASURES, " (the pre-render off)"),
    ...checkDistanceBudgets(results),
    ...freshIsolateChecks(results),
  ];
}

/** The median; of an even count, the mean of the middle two. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Issue 13's pair: event creation without webhook subscriptions, and with them. */
const WEBHOOK_PAIR = { baseline: "event-create", subject: "event-create-hooks" };

/** A pair, round by round: [{ round, baseline, subject }] of `runs` (one pass's results). */
function pairRounds(runs = [], { baseline, subject }) {
  const rounds = new Map();
  for (const r of runs) {
    const round = r.round ?? 1;
    const entry = rounds.get(round) ?? { round };
    if (r.id === baseline) entry.baseline = r;
    if (r.id === subject) entry.subject = r;
    rounds.set(round, entry);
  }
  return [...rounds.values()].filter((e) => e.baseline && e.subject);
}

/** What the pair compares, per request: p50, process CPU, and the Worker's isolate's CPU samples. */
const PAIR_MEASURES = {
  latency: (r) => r.p50,
  cpu: (r) => r.cpuMs.runtime,
  isolate: (r) => r.isolate?.busySamplesPerRequest,
};

/** The pair's ratios, subject to baseline: per round, and the median of the rounds. */
function pairRatios(runs, pair) {
  const rounds = pairRounds(runs, pair).map((e) => ({
    ...e,
    ...Object.fromEntries(Object.entries(PAIR_MEASURES).map(([key, of]) => [key, of(e.subject) / of(e.baseline)])),
  }));
  return { rounds, ...Object.fromEntries(Object.keys(PAIR_MEASURES).map((key) => [key, median(rounds.map((e) => e[key]))])) };
}

/**
 * Issue 13: creating an event with subscriptions against without, the
 * request's latency and the Worker's CPU within 20 %, on Miniflare directly
 * with no Queue consumer (no delivery runs in the metered process), one
 * connection, in alternating rounds; the median of the rounds' ratios is
 * checked, the Worker's CPU as its isolate's profiler samples (see webhookSection).
 */
function webhookChecks(results) {
  const pair = pairRatios(results.isolatePair, WEBHOOK_PAIR);
  if (pair.rounds.length === 0) return [];
  const each = (key) => pair.rounds.map((e) => f(e[key], 2)).join(", ");
  const id = "event-create-hooks";
  return [
    {
      id,
      rule: "no Queue consumer, one connection: p50 ≤ 1.2× without subscriptions",
      value: `${f(pair.latency, 2)}×, the median of the rounds' ${each("latency")}`,
      pass: pair.latency <= 1.2,
    },
    {
      id,
      rule: "no Queue consumer: Worker CPU (the Worker's isolate) ≤ 1.2× without subscriptions",
      value: `${f(pair.isolate, 2)}×, the median of the rounds' ${each("isolate")}`,
      pass: pair.isolate <= 1.2,
    },
  ];
}

/** Issue 20's pairs (CAPACITY_PAIRS): p50 and the Worker's isolate CPU. */
const CAPACITY_MEASURES = [
  ["latency", "one connection: p50"],
  ["isolate", "Worker CPU (the Worker's isolate)"],
];

/** Issue 21's pair (ORDER_PAIRS): Worker CPU, the workerd process's (its pass has no isolate profiler). */
const ORDER_MEASURES = [["cpu", "Worker CPU (the workerd process)"]];

/**
 * The budget checks of the pairs `defs` measured in `runs`, one per measure ([PAIR_MEASURES key,
 * what it is]), each on the median of the rounds' ratios.
 */
function pairChecks(runs, defs, measures, where = "") {
  return defs.flatMap((def) => {
    const pair = pairRatios(runs, def);
    if (pair.rounds.length === 0) return [];
    const each = (key) => pair.rounds.map((e) => f(e[key], 2)).join(", ");
    return measures.map(([key, what]) => ({
      id: def.subject,
      rule: `${what} ≤ ${def.budget}× ${def.baseline}${where}`,
      value: `${f(pair[key], 2)}×, the median of the rounds' ${each(key)}`,
      pass: pair[key] <= def.budget,
    }));
  });
}

/** Each pair of `defs` measured in `runs`: its rounds, then the medians of their ratios (those measured). */
function pairSections(runs, defs) {
  return defs.flatMap((def) => {
    const pair = pairRatios(runs, def);
    if (pair.rounds.length === 0) return [];
    const medians = [
      ["p50", pair.latency],
      ["isolate samples", pair.isolate],
      ["process CPU", pair.cpu],
    ].filter(([, ratio]) => Number.isFinite(ratio));
    return [
      "",
      `**${def.subject} against ${def.baseline}**`,
      "",
      ...pairTable(pair, def.baseline),
      "",
      `Median of the rounds: ${medians.map(([what, ratio]) => `${what} ${f(ratio, 2)}×`).join(", ")}.`,
    ];
  });
}

/** How busy other programs kept the machine during the pairs' loads `runs`. */
function otherProgramsDuring(runs) {
  const others = median(runs.map((r) => r.otherCores));
  return others > 0.25
    ? `**Other programs competed for the CPU**: they kept a median of ${f(others, 2)} cores busy during the pairs' loads, both sides of each round alike.`
    : "Other programs kept a median of less than 0.25 of a core busy during the pairs' loads.";
}

/** Issue 20: the pairs round by round, and sales a second on one day through `wrangler dev`. */
function capacitySection(results) {
  const lines = [];
  const pairs = CAPACITY_PAIRS.map((def) => ({ def, pair: pairRatios(results.capacityPairs, def) })).filter((p) => p.pair.rounds.length > 0);
  if (pairs.length > 0) {
    const seed = results.capacitySeed;
    lines.push(
      "",
      "### Capacity: a sale on a full day, and on a day with limits",
      "",
      "General sales (`POST /tickets`, unique bodies), measured as the webhook pair: Miniflare directly, no Queue consumer, " +
        "one connection at 100 requests a second, V8's profiler on the Worker's isolate, the sides alternating round after " +
        `round (${pairs[0].pair.rounds.length} round(s), ${results.settings.pairSales} sales each after 20 of warm-up); the budgets ` +
        "are checked on the medians of the rounds' ratios. The sale's image pre-render is off in this pass " +
        "(`PRERENDER_TICKET_IMAGES = \"false\"`): the same work on both sides, after the response. " +
        (seed
          ? `The full day, ${seed.days.full}, was seeded with ${seed.places.tickets.toLocaleString("en")} general tickets inserted as rows; ` +
            `its \`ticket_places\` counter, kept by the triggers, read ${seed.places.counter.toLocaleString("en")} before the run. `
          : "") +
        "The empty side sells on a day never sold before, a new one each round. The day with limits has, through " +
        "`PUT /museum-hours/exceptions/{date}`, a capacity of 100,000 and 30-minute entry slots of 100,000 each; its sales ask for 09:30.",
    );
    lines.push(...pairSections(results.capacityPairs, CAPACITY_PAIRS), "", otherProgramsDuring(results.capacityPairs));
  }
  const sales = results.scenarios.find((r) => r.id === "tickets-buy");
  if (sales) {
    lines.push(
      "",
      "### Sales a second on one day",
      "",
      `\`tickets-buy\` through \`wrangler dev\`: general sales for one date (${sales.connections} connections, ` +
        `${results.settings.duration} s, the pre-render on): **${f(sales.rps, 0)} sales a second**, p50 ${f(sales.p50, 2)} ms, ` +
        `p99 ${f(sales.p99, 2)} ms, ${sales.failures} failures, other programs kept ${f(sales.otherCores, 2)} cores busy. ` +
        "The Worker's CPU and `wrangler dev` on the machine's shared cores bound this figure, not D1's one writer " +
        "(local D1 is SQLite in the same process); what it means in production: docs/capacity.md.",
    );
  }
  return lines;
}

/**
 * Issue 21: an order of 4 against a single purchase, with the sale's pre-render on and off; and
 * the kiosk that buys an order and fetches its images.
 */
function orderSection(results) {
  const lines = [];
  const on = results.orderPairs ?? [];
  const off = results.orderPairsNoPrerender ?? [];
  if (on.length > 0 || off.length > 0) {
    const s = results.settings;
    const { budget } = ORDER_PAIRS[0];
    lines.push(
      "",
      `### Orders: an order of ${ORDER_LINES} against a single purchase`,
      "",
      `\`POST /orders\` with ${ORDER_LINES} general lines against \`POST /tickets\` for one general ticket, both for the same open ` +
        "day without limits, measured as the capacity pairs: Miniflare directly, no Queue consumer, one connection at " +
        `${s.orderPairRate} requests a second, the sides alternating round after round (${s.orderPairRounds} round(s), ` +
        `${s.orderPairSales} sales each after 20 of warm-up), the medians of the rounds' ratios. Worker CPU is the workerd ` +
        "process's, local D1 included (so an upper bound); no isolate profiler in this pass: at this pace its sampling " +
        "would outweigh the sales in the process's CPU. Twice: with the sale's image pre-render as " +
        "deployed (`PRERENDER_TICKET_IMAGES = \"true\"`: every ticket's image rendered in `waitUntil` after the response, " +
        "inside the CPU measured) and with it off. " +
        `Budget (issue 21): the order's Worker CPU ≤ ${budget}× the single purchase's, checked with the pre-render off ` +
        `(the ${ORDER_LINES} renders are per-ticket work that ${ORDER_LINES} single purchases do as well; docs/performance.md).`,
    );
    for (const [runs, title] of [
      [on, "Pre-render on (as deployed)"],
      [off, "Pre-render off"],
    ]) {
      if (runs.length === 0) continue;
      const { cpu } = pairRatios(runs, ORDER_PAIRS[0]);
      lines.push(
        "",
        `#### ${title}`,
        ...pairSections(runs, ORDER_PAIRS),
        `Process CPU per ticket: ${f(cpu / ORDER_LINES, 2)}× a single purchase's.`,
        "",
        otherProgramsDuring(runs),
      );
    }
  }
  const kiosk = results.scenarios.find((r) => r.id === "kiosk-order-fetch");
  if (kiosk) {
    const steps = kiosk.sequence;
    lines.push(
      "",
      `### Kiosk: an order of ${ORDER_LINES}, then its ${ORDER_LINES} images`,
      "",
      `\`kiosk-order-fetch\` through \`wrangler dev\` (one connection, ${results.settings.duration} s, the pre-render on): ` +
        `${Math.floor(kiosk.requests / steps)} sequences of \`POST /orders\` then \`GET /tickets/{id}/qr\` for each ticket; ` +
        `the whole sequence p50 ${f(kiosk.p50, 2)} ms, p95 ${f(kiosk.p95, 2)} ms, p99 ${f(kiosk.p99, 2)} ms; Worker CPU ` +
        `${f(kiosk.cpuMs.runtime * steps, 2)} ms a sequence (the order, its ${ORDER_LINES} pre-renders and ${ORDER_LINES} fetches; ` +
        `${f(kiosk.cpuMs.runtime, 2)} ms a request), proxy CPU ${f((kiosk.cpuMs.proxy + kiosk.cpuMs.wrangler) * steps, 2)} ms a sequence; ` +
        `${kiosk.failures} failures; other programs kept ${f(kiosk.otherCores, 2)} cores busy.`,
    );
  }
  return lines;
}

/** The pair's rounds as Markdown table lines; `versus` names the baseline in the last column's heading. */
function pairTable(pair, versus = "without subscriptions") {
  const lines = [
    `| Round | Scenario | Requests | req/s | p50 ms | p99 ms | Failures | Process CPU ms/req | Isolate samples/req | × ${versus} (p50, process CPU, isolate) |`,
    "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const e of pair.rounds) {
    for (const r of [e.baseline, e.subject]) {
      const ratios = [e.latency, e.cpu, e.isolate].map((x) => (r === e.baseline ? "1.00" : f(x, 2))).join(", ");
      lines.push(
        `| ${e.round} | ${r.title} | ${r.requests} | ${f(r.rps, 0)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${r.failures} | ` +
          `${f(r.cpuMs.runtime, 2)} | ${f(r.isolate?.busySamplesPerRequest, 2)} | ${ratios} |`,
      );
    }
  }
  return lines;
}

/**
 * Issue 13's pair: the requests' own cost (both sides on a server whose Queue
 * has no consumer) and the deliveries' cost (the main server, whose consumer
 * runs in the same workerd process as the requests).
 */
function webhookSection(results) {
  const byId = new Map(results.scenarios.map((s) => [s.id, s]));
  const withConsumer = byId.get("event-create-hooks");
  const lines = [];
  const pair = pairRatios(results.isolatePair, WEBHOOK_PAIR);
  if (pair.rounds.length > 0) {
    lines.push(
      "",
      "### Creating an event with and without webhook subscriptions: the request's own cost",
      "",
      "Both sides of issue 13's pair again, on Miniflare directly (no `wrangler dev`) with a bench-only copy of wrangler.toml " +
        "without `[[queues.consumers]]` (the producer binding stays): every request writes its outbox rows and hands its " +
        "messages to the local Queue as in production, but no delivery runs in the metered workerd process. One connection, " +
        "so a request's latency is its own, not a queue behind others. The two sides alternate (A B, B A, A B…), " +
        `${pair.rounds.length} round(s) of 2× the main pass's requests and warm-up each, so a trend in the machine's load or ` +
        "the isolate's warmth falls on both alike. V8's CPU profiler samples the Worker's isolate during each load: workerd " +
        "runs the Worker, local D1 and the local Queue broker on one thread, each in its own isolate, and takes a sample only " +
        "while the Worker's isolate runs, so the samples per request measure the Worker's own CPU, which is what Cloudflare " +
        "meters as a Worker's CPU time (D1 and Queues run elsewhere in production). *Process CPU* is the whole workerd " +
        "process's, local D1, the local broker and the profiler included (reported). The budgets are checked on the median " +
        "of the rounds' ratios: p50, and isolate samples per request.",
      "",
      ...pairTable(pair),
      "",
      `Median of the rounds: p50 ${f(pair.latency, 2)}×, isolate samples ${f(pair.isolate, 2)}×, process CPU ${f(pair.cpu, 2)}×.`,
    );
  }
  if (!withConsumer?.background) return lines;
  const b = withConsumer.background;
  const main = byId.get("event-create");
  const raw = main ? ` (${f(withConsumer.cpuMs.runtime / main.cpuMs.runtime, 2)}× the ${f(main.cpuMs.runtime, 2)} ms without subscriptions)` : "";
  lines.push(
    "",
    "### Webhook deliveries, off the request path",
    "",
    "On the main server the Queue's consumer (the same Worker's `queue` handler: read the delivery, sign, POST to the " +
      "bench's loopback receiver, record the attempt) runs in the same workerd process as the requests, so the process's " +
      "CPU during the load holds every delivery that ran meanwhile. After the load the bench waits until the receiver has " +
      "all of them and meters the process while the rest drain: that gives the CPU of one delivery.",
    "",
    `- Worker process CPU during the load, deliveries included: ${f(withConsumer.cpuMs.runtime, 2)} ms per request${raw}`,
    `- deliveries received during the load: ${b.deliveriesDuringLoad}; after it: ${b.deliveriesAfterLoad}, in ${f(b.seconds, 1)} s ` +
      `(${b.drained ? "all arrived" : "**not all arrived**"}); ${f(b.cpuMs, 0)} ms of Worker CPU meanwhile, ` +
      `${b.cpuMsPerDelivery === undefined ? "–" : `${f(b.cpuMsPerDelivery, 2)} ms`} per delivery`,
    `- the load's Worker CPU less the deliveries made during it at that cost (an estimate; the rows above measure it): ` +
      `${b.requestPathCpuMs === undefined ? "– (no delivery was left after the load)" : `${f(b.requestPathCpuMs, 2)} ms per request`}`,
  );
  return lines;
}

/** Each hot path at D1 0 ms and at the run's distance: { id, near, far } (results of both passes). */
function distancePairs(results) {
  const rtt = results.settings.d1Rtt;
  const near = results.distance?.[0] ?? [];
  const far = new Map((results.distance?.[rtt] ?? []).map((r) => [r.id, r]));
  return near.filter((r) => far.has(r.id)).map((r) => ({ id: r.id, title: r.title, near: r, far: far.get(r.id) }));
}

/** Budget at a distance: p50 at RTT ≤ p50 at 0 ms + 1 RTT + 5 ms. */
function checkDistanceBudgets(results) {
  const rtt = results.settings.d1Rtt;
  return distancePairs(results).map(({ id, near, far }) => {
    const limit = near.p50 + rtt + 5;
    return {
      id,
      distance: true,
      rule: `p50 at D1 ${rtt} ms ≤ p50 at 0 ms + ${rtt} + 5 ms`,
      value: `${f(far.p50, 2)} ms vs ${f(limit, 2)} ms`,
      pass: far.p50 <= limit,
    };
  });
}

/** The hot paths with D1 next door and a network hop away, and their round trips. */
function distanceSection(results, checks) {
  const pairs = distancePairs(results);
  if (pairs.length === 0) return [];
  const rtt = results.settings.d1Rtt;
  const lines = [
    "",
    `## D1 at a distance: round trips, and each hot path at 0 and ${rtt} ms`,
    "",
    `The distance bundle (bench/distance-worker.ts: the Worker with every D1 round trip counted and delayed by a fixed time; ` +
      `never deployed) through \`wrangler dev\`, ${results.settings.distanceDuration} s per scenario on one connection (latency, not ` +
      `throughput: no request waits behind another's CPU), once with the delay 0 and once ${rtt} ms. ` +
      "*D1 round trips* is what the bundle counted for one request of the scenario (a kiosk's whole sequence), the login remembered. " +
      `Budget: p50 at ${rtt} ms ≤ p50 at 0 ms + one round trip + 5 ms.`,
    "",
    `| Scenario | D1 round trips | p50 ms @0 | p99 ms @0 | p50 ms @${rtt} | p99 ms @${rtt} | p50 Δ ms | Budget |`,
    "|---|--:|--:|--:|--:|--:|--:|---|",
  ];
  for (const { id, title, near, far } of pairs) {
    const check = checks.find((c) => c.id === id && c.distance);
    lines.push(
      `| ${title} | ${near.roundTrips} | ${f(near.p50, 2)} | ${f(near.p99, 2)} | ${f(far.p50, 2)} | ${f(far.p99, 2)} | ` +
        `${f(far.p50 - near.p50, 2)} | ${check ? `${check.value} ${mark(check.pass)}` : "–"} |`,
    );
  }
  return lines;
}

/** Title, machine, and the introduction of the results table. */
function headerSection(results) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  const m = results.machine;
  push(
    `# Museum API benchmark (${results.mode} run)`,
    "",
    `Run ${results.startedAt} on commit ${m.commit}; ${f(results.wallSeconds, 0)} s in all. ` +
      `Generated by \`npm run bench${results.args?.length ? ` -- ${results.args.join(" ")}` : ""}\` (bench/run.mjs); method in docs/performance.md.`,
    "",
    "## Machine",
    "",
    `- ${m.cpus} × ${m.model}, ${f(m.memGiB, 1)} GiB RAM; ${m.os}, Linux ${m.kernel}`,
    `- Node ${m.node}, wrangler ${m.wrangler} (workerd ${m.workerd}), autocannon ${m.autocannon}`,
    `- load average (1/5/15 min) before: ${results.loadBefore.map((x) => f(x, 2)).join(" / ")}, ` +
      `after: ${results.loadAfter.map((x) => f(x, 2)).join(" / ")}`,
    `- load generator, wrangler dev and workerd share these ${m.cpus} cores`,
    "",
    "## Results",
    "",
    `Each scenario: a ${results.settings.warmup} s warm-up, then ${results.settings.duration} s at ` +
      `${results.settings.connections} connections (the first-render QR scenario: ${results.settings.qrFirstRequests} ` +
      "requests on one connection, each for a ticket never rendered before). Latency is measured at the client " +
      "through `wrangler dev`'s proxy. *Worker CPU* is the user+system CPU time of the workerd process that runs the " +
      "Worker and its local D1, per request; *proxy CPU* that of wrangler's dev proxy (a second workerd) and wrangler's " +
      "Node process, which do not exist in production. Ratios are to the static route on the same server.",
    "",
    "| Scenario | Conn. | Requests | req/s | p50 ms | p99 ms | Failures | Worker CPU ms/req | Proxy CPU ms/req | p50 × static | req/s × static | CPU × static | Budgets |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
  );
  return lines;
}

/** One row per scenario, with ratios to the static route and the budgets; then who else used the CPU, and failures. */
function resultsRows(results, checks) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  for (const r of results.scenarios) {
    const base = baselineFor(results, r);
    const mine = checks.filter((c) => c.id === r.id && !c.distance);
    const budgets = mine.length === 0 ? "–" : mine.map((c) => `${c.rule}: ${c.value} ${mark(c.pass)}`).join("<br>");
    const isBase = base === r;
    push(
      `| ${r.title} | ${r.connections} | ${r.requests} | ${f(r.rps, 0)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${r.failures} | ` +
        `${f(r.cpuMs.runtime, 2)} | ${f(r.cpuMs.proxy + r.cpuMs.wrangler, 2)} | ` +
        `${isBase || !base ? "1.00" : f(r.p50 / base.p50, 2)} | ${isBase || !base ? "1.00" : f(r.rps / base.rps, 2)} | ` +
        `${isBase || !base ? "1.00" : f(r.cpuMs.runtime / base.cpuMs.runtime, 2)} | ${budgets} |`,
    );
  }
  const busy = results.scenarios.filter((r) => r.otherCores > 0.25);
  push(
    "",
    busy.length === 0
      ? "Other programs on the machine kept less than 0.25 of a core busy during every scenario."
      : `**Other programs competed for the CPU** during ${busy.map((r) => `${r.id} (${f(r.otherCores, 2)} cores)`).join(", ")}: ` +
          "those rows understate this machine.",
  );
  const failed = results.scenarios.filter((r) => r.failures > 0);
  if (failed.length > 0) {
    push("", "Failures by status:", "");
    for (const r of failed) {
      push(`- ${r.id}: statuses ${JSON.stringify(r.statuses)}, socket errors/timeouts ${r.errors}, warm-up failures ${r.warmupFailures}`);
    }
  }

  return lines;
}

/** The diagnostic pass without `wrangler dev`. */
function directSection(results) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  if (results.direct?.length) {
    const base = results.direct.find((r) => r.id === "static");
    push(
      "",
      "### The same Worker without `wrangler dev` (diagnostic)",
      "",
      `The same bundle and database served by Miniflare directly (${results.settings.directDuration} s per scenario, ` +
        `${results.settings.connections} connections): one workerd process, no dev proxy, no DevTools inspector relaying ` +
        "every D1 call and log line to wrangler. Not the measurement the budgets are checked on; it shows what is the " +
        "Worker and what is `wrangler dev`.",
      "",
      "| Scenario | Requests | req/s | p50 ms | p99 ms | Failures | Worker CPU ms/req | p50 × static | req/s × static | CPU × static |",
      "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    );
    for (const r of results.direct) {
      const ratio = (a, b) => (base && r !== base ? f(a / b, 2) : "1.00");
      push(
        `| ${r.title} | ${r.requests} | ${f(r.rps, 0)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${r.failures} | ${f(r.cpuMs.runtime, 2)} | ` +
          `${ratio(r.p50, base?.p50)} | ${ratio(r.rps, base?.rps)} | ${ratio(r.cpuMs.runtime, base?.cpuMs.runtime)} |`,
      );
    }
  }

  return lines;
}

/** The budget checks that missed, and the first QR render. */
function budgetSection(results, checks) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  push("", "### Budgets", "");
  if (checks.length === 0) push("No budget applies to the scenarios run.");
  else {
    const missed = checks.filter((c) => !c.pass);
    push(`${checks.length - missed.length} of ${checks.length} checks pass.`);
    for (const c of missed) push(`- missed: ${c.id}, ${c.rule} (measured ${c.value})`);
    const first = results.scenarios.find((r) => r.kind === "qr-first");
    if (first) {
      push(
        `- first QR render (no budget, reported): ${f(first.cpuMs.runtime, 1)} ms Worker CPU per request, ` +
          `p50 ${f(first.p50, 1)} ms at one connection`,
      );
    }
  }

  return lines;
}

/** The soak: its mix, then each run (through wrangler dev, and without it). */
function soakSection(results) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  if (results.soak || results.directSoak) {
    const any = results.soak ?? results.directSoak;
    push(
      "",
      "## Soak",
      "",
      `${any.seconds} s at ${any.connections} connections of a fixed pseudo-random mix: list (default window) 25 %, list (a year) 10 %, ` +
        "get event 15 %, museum hours 15 %, buy a ticket 15 %, ticket QR image 20 % (over " +
        `${results.settings.soakTickets} tickets, more than the 256-image memory cache, so renders, edge-cache hits and memory hits all occur). ` +
        "Memory is sampled every second.",
    );
  }
  for (const [s, title] of SOAK_RUNS(results)) {
    if (!s) continue;
    push(...soakRun(s, title));
  }
  return lines;
}

/** One soak run: requests, latency, workerd's memory and the Worker's heap. */
function soakRun(s, title) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  const rss = s.rss;
  push(
    "",
    `**${title}**`,
    "",
    `- ${s.requests} requests (${f(s.rps, 0)} req/s), **${s.failures} failures**; statuses ${JSON.stringify(s.statuses)}` +
      (s.socketErrors ? `; ${s.socketErrors} connections reset by workerd's own HTTP server (${JSON.stringify(s.errorMessages)}; see docs/performance.md)` : ""),
    `- latency p50 ${f(s.p50, 2)} ms, p99 ${f(s.p99, 2)} ms, max ${f(s.max, 1)} ms; Worker CPU ${f(s.cpuMs.runtime, 2)} ms/req; ` +
      `other programs kept ${f(s.otherCores, 2)} cores busy`,
    `- workerd (Worker runtime) RSS, MiB: start ${f(rss.start.runtime, 0)}, 25 % ${f(rss.quarter.runtime, 0)}, ` +
      `middle ${f(rss.middle.runtime, 0)}, 75 % ${f(rss.threeQuarters.runtime, 0)}, end ${f(rss.end.runtime, 0)} ` +
      `(${f(((rss.end.runtime - rss.start.runtime) * 1024) / Math.max(1, s.requests), 2)} KiB per request)` +
      (rss.start.proxy ? `; wrangler's dev proxy workerd: start ${f(rss.start.proxy, 0)}, end ${f(rss.end.proxy, 0)}` : ""),
  );
  const k = s.retainedHeap;
  if (k?.start && k?.middle && k?.end) {
    const drift = k.end.used - k.middle.used;
    const stable = drift <= Math.max(2, 0.1 * k.middle.used);
    push(
      `- the Worker isolate's JS heap after a full collection (a DevTools heap snapshot), before the load → halfway → after it: ` +
        `${f(k.start.used, 1)} → ${f(k.middle.used, 1)} → ${f(k.end.used, 1)} MiB in use ` +
        `(ArrayBuffers and wasm memory ${f(k.start.backing, 1)} → ${f(k.middle.backing, 1)} → ${f(k.end.backing, 1)} MiB): ` +
        (stable
          ? "**stable** (the second half added at most 2 MiB or 10 %)"
          : "**growing** (the second half added more than 2 MiB and 10 %)"),
    );
  }
  const h = s.heap;
  if (h) {
    push(
      `- between collections (${h.samples} samples of \`Runtime.getHeapUsage\`): in use up to ${f(h.maxUsed, 1)} MiB, ` +
        `reserved up to ${f(h.maxTotal, 1)} MiB (V8 lets garbage accumulate until it collects; the Workers limit is 128 MB per isolate)`,
    );
  }
  return lines;
}

const SOAK_RUNS = (results) => [
  [results.soak, "Through `wrangler dev` (a fresh server, a DevTools client attached from its start to drain wrangler's event buffer and read the Worker's heap)"],
  [results.directSoak, "Without `wrangler dev` (Miniflare directly, its inspector attached straight to the Worker: no DevTools relay, no Network domain)"],
];

/** What the soak's memory compares with: the dev proxy, and the control Worker. */
function soakComparisons(results) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  if (results.soak || results.directSoak) {
    push("");
    if (results.proxyRssAfter?.small !== undefined) {
      push(
        `- for comparison, wrangler's dev proxy workerd after the scenarios of the results table, with no DevTools client attached: ` +
          `${f(results.proxyRssAfter.small, 0)} MiB RSS (it keeps every DevTools event of the Worker until a client attaches)`,
      );
    }
    if (results.control) {
      const c = results.control;
      push(
        `- control: a Worker that only answers \`ok\` (bench/control-worker.js, Miniflare, no D1) grew workerd's RSS ` +
          `${f(c.rssStart, 0)} → ${f(c.rssEnd, 0)} MiB over ${c.requests} requests (${f(c.kibPerRequest, 2)} KiB per request): ` +
          "workerd's resident memory grows under load whatever the Worker does, up to a plateau (docs/performance.md)",
      );
    }
  }

  return lines;
}

/** Bundle sizes and startup. */
function bundleSection(results) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  push("", "## Bundle and startup", "", "| Build | Upload (raw) | gzip | index.js | Startup (CPU profile) |", "|---|--:|--:|--:|--:|");
  const b = results.bundle;
  const js = (bundle) => bundle.files.find((x) => x.name === "index.js");
  push(
    `| as configured (wrangler.toml) | ${kib(b.raw)} | ${kib(b.gzip)} | ${kib(js(b).raw)} (${kib(js(b).gzip)} gzip) | ` +
      `${results.startup ? `${f(results.startup.busyMs, 0)} ms` : "–"} |`,
  );
  if (results.bundleMinified) {
    const mb = results.bundleMinified;
    push(
      `| with \`--minify\` | ${kib(mb.raw)} | ${kib(mb.gzip)} | ${kib(js(mb).raw)} (${kib(js(mb).gzip)} gzip) | ` +
        `${results.startup ? `${f(results.startup.busyMsMinified, 0)} ms` : "–"} |`,
    );
  }
  push(
    "",
    `Sizes of \`wrangler deploy --dry-run --outdir\` without source maps (wrangler's own count: ${b.wranglerTotalKiB} KiB / gzip ${b.wranglerGzipKiB} KiB). ` +
      "Startup: the median over runs of `wrangler check startup`'s CPU profile (time not idle while workerd loads the Worker and runs its top level). " +
      `Time from spawning \`wrangler dev\` to the first 200 from /healthz: ${f((results.ready_small ?? results.ready_large) / 1000, 1)} s.`,
  );
  for (const file of b.files) push(`- ${file.name.replace(/^[0-9a-f]{40}-/, "")}: ${kib(file.raw)} (${kib(file.gzip)} gzip)`);

  return lines;
}

/** The query plan of the year list over the large database. */
function queryPlanSection(results) {
  const lines = [];
  const push = (...xs) => lines.push(...xs);
  if (results.queryPlan) {
    push("", `## Query plan: the year list over ${results.largeSeed?.events.toLocaleString("en")} events`, "");
    if (results.queryPlan.error) push(`Could not get the plan: ${results.queryPlan.error}`);
    else push("```", ...results.queryPlan.plan, "```");
    if (results.largeSeed) {
      push(
        "",
        `Seeded through \`wrangler d1 execute --local --file\` (multi-row INSERTs) in ${f(results.largeSeed.seedMs / 1000, 1)} s ` +
          `(migrations ${f(results.largeSeed.migrateMs / 1000, 1)} s).`,
      );
    }
  }
  return lines;
}

/**
 * Worker CPU of a first ticket image fetch (the render) and where it goes
 * (bench/render-breakdown.mjs), with issue 14's target checked: a first
 * render under 10 ms (the p50 of first fetches in a warm isolate).
 */
export function renderCostSection(results) {
  const cost = results.renderCost;
  if (!cost) return [];
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const p = (xs, q) => percentile(sorted(xs), q);
  const [self] = cost.subjects;
  const firstP50 = p(self.firstMs, 50);
  const column = (title, value) => `| ${title} | ${cost.subjects.map(value).join(" | ")} |`;
  return [
    "",
    "## Render cost: a first ticket image fetch",
    "",
    `Worker CPU of \`GET /v1.1/tickets/{id}/qr\` (workerd process, all threads, /proc schedstat), served by Miniflare directly; ` +
      `${cost.warmups} first fetches of tier-up, then ${cost.renders} measured` +
      (cost.subjects.length > 1 ? ", alternating between the checkouts request by request." : "."),
    "",
    `| | ${cost.subjects.map((s) => s.label).join(" | ")} |`,
    `|---|${cost.subjects.map(() => "--:|").join("")}`,
    column("first fetch, p10 / p50 / p90", (s) => `${f(p(s.firstMs, 10), 2)} / **${f(p(s.firstMs, 50), 2)}** / ${f(p(s.firstMs, 90), 2)} ms`),
    column("first fetch of a fresh isolate", (s) => `${f(s.freshMs, 0)} ms`),
    column("tier-up fetches, mean", (s) => `${f(s.warmupMs.reduce((a, b) => a + b, 0) / Math.max(1, s.warmupMs.length), 1)} ms`),
    column("cached fetch, median", (s) => `${f(p(s.cachedMs, 50), 2)} ms`),
    column("PNG size", (s) => `${f(s.pngBytes / 1024, 1)} KiB`),
    "",
    `Budget: first render < 10 ms of Worker CPU (p50): ${f(firstP50, 2)} ms, ${mark(firstP50 < 10)}.`,
    "",
    `Where it goes (${self.label}): V8 profiles of ${cost.renders} more first fetches (sampled every ${cost.interval} µs), ` +
      "each sample charged to the innermost function naming a part, shares scaled to the p50 above.",
    "",
    "| part | share | ms |",
    "|---|--:|--:|",
    ...cost.parts.map((part) => `| ${part.part} | ${f(part.share * 100, 1)} % | ${f(part.ms, 2)} |`),
  ];
}

/** The card kinds of the fresh-isolate step (bench/render-breakdown.mjs), each a ticket sold through the API. */
export const CARD_KINDS = ["general", "event", "cancelled"];

/** The fresh-isolate step's slices of an isolate's renders (1-based, inclusive): the last is the warm figure. */
export const FRESH_SLICES = [
  { label: "render 1", from: 1, to: 1 },
  { label: "renders 2–10", from: 2, to: 10 },
  { label: "renders 11–40", from: 11, to: 40 },
  { label: "renders 41–60 (warm)", from: 41, to: 60 },
];

/** One isolate's renders of a slice (FRESH_SLICES), by measure ("cpuMs" or "latencyMs"). */
const sliceOf = (series, slice, measure) => series.slice(slice.from - 1, slice.to).map((r) => r[measure]);

/** A subject's median of a slice over every round's isolate, by kind. */
function sliceMedian(subject, kind, slice, measure) {
  return median(subject.fresh[kind].flatMap((series) => sliceOf(series, slice, measure)));
}

/** Per round, `of(round's isolate)`; the median of the rounds. */
function medianOfRounds(rounds, of) {
  return median(Array.from({ length: rounds }, (_, round) => of(round)));
}

const WARM = FRESH_SLICES.at(-1);

/**
 * The fresh-isolate budgets (issue 22), on this checkout's figures: a
 * cancelled card at most 1.2× a valid card of the same kind (event); renders
 * 2–10 and 11–40 of a fresh isolate within 5× and 2.5× the warm figure of the
 * same kind, per round, median of the rounds (a guard: V8 compiling resvg's
 * wasm is what they cost, and a change that makes it worse shows here).
 */
export const FRESH_BUDGETS = { cancelledOverValid: 1.2, slices: { "renders 2–10": 5, "renders 11–40": 2.5 } };

/** A cancelled card's render over an event card's, fetched in turn by one warm isolate: the median of the pairs. */
const cancelledRatio = (subject) => median(subject.pairs.map((pair) => pair.cancelled / pair.event));

function freshIsolateChecks(results) {
  const fresh = results.freshIsolates;
  if (!fresh) return [];
  const [self] = fresh.subjects;
  const warmOf = (kind, round) => median(sliceOf(self.fresh[kind][round], WARM, "cpuMs"));
  const cancelled = cancelledRatio(self);
  const checks = [
    {
      id: "render-cancelled",
      rule: `cancelled card ≤ ${FRESH_BUDGETS.cancelledOverValid}× an event card (Worker CPU, a warm isolate, the two fetched in turn, median of ${self.pairs.length} pairs' ratios)`,
      value: `${f(cancelled, 2)}×`,
      pass: cancelled <= FRESH_BUDGETS.cancelledOverValid,
    },
  ];
  for (const [label, limit] of Object.entries(FRESH_BUDGETS.slices)) {
    const slice = FRESH_SLICES.find((s) => s.label === label);
    for (const kind of CARD_KINDS) {
      const ratio = medianOfRounds(fresh.rounds, (round) => median(sliceOf(self.fresh[kind][round], slice, "cpuMs")) / warmOf(kind, round));
      checks.push({ id: `fresh-${kind}`, rule: `fresh isolate, ${kind} card, ${label}: Worker CPU p50 ≤ ${limit}× warm`, value: `${f(ratio, 2)}×`, pass: ratio <= limit });
    }
  }
  return checks;
}

/** The fresh-isolate part: each kind's slices, CPU and latency, per checkout; the sale with its pre-render. */
export function freshIsolatesSection(results) {
  const fresh = results.freshIsolates;
  if (!fresh) return [];
  const subjects = fresh.subjects;
  const lines = [
    "",
    "## Fresh isolates: the first renders of each card kind",
    "",
    `Each round starts a fresh isolate (Miniflare directly) for each card kind${subjects.length > 1 ? " and checkout" : ""}, ` +
      `in an order that alternates round by round, and fetches ${fresh.renders} images never rendered, one at a time ` +
      `(${fresh.rounds} rounds). Worker CPU: the workerd process, all threads (V8's background compilation included); ` +
      "latency: at the client. Medians of the slice's renders over every round, ms, CPU / latency.",
    "",
    `| card | slice | ${subjects.map((s) => s.label).join(" | ")} |${subjects.length > 1 ? " CPU × before (median of rounds) |" : ""}`,
    `|---|---|${subjects.map(() => "--:|").join("")}${subjects.length > 1 ? "--:|" : ""}`,
  ];
  for (const kind of [...CARD_KINDS, fresh.warmedUp]) {
    for (const slice of FRESH_SLICES) {
      const cells = subjects.map((s) => `${f(sliceMedian(s, kind, slice, "cpuMs"), 1)} / ${f(sliceMedian(s, kind, slice, "latencyMs"), 1)}`);
      const versus =
        subjects.length > 1
          ? ` ${f(medianOfRounds(fresh.rounds, (round) => median(sliceOf(subjects[0].fresh[kind][round], slice, "cpuMs")) / median(sliceOf(subjects[1].fresh[kind][round], slice, "cpuMs"))), 2)}× |`
          : "";
      lines.push(`| ${kind} | ${slice.label} | ${cells.join(" | ")} |${versus}`);
    }
  }
  const sale = (s, measure) => median(s.sales.map((r) => r[measure]));
  lines.push(
    "",
    `A sale with its pre-render (\`POST /tickets\`, \`PRERENDER_TICKET_IMAGES = "true"\`, a warm isolate, the CPU read once the pre-render is done), ` +
      `median of ${subjects[0].sales.length}${subjects.length > 1 ? ", alternating between the checkouts" : ""}: ` +
      subjects.map((s) => `${s.label} ${f(sale(s, "cpuMs"), 2)} ms CPU, ${f(sale(s, "latencyMs"), 2)} ms latency`).join("; ") +
      ".",
  );
  lines.push(
    "",
    "A cancelled card against an event card, fetched in turn by the same warm isolate, median of the pairs' ratios (Worker CPU): " +
      subjects.map((s) => `${s.label} ${f(cancelledRatio(s), 2)}×`).join("; ") +
      ".",
  );
  const checks = freshIsolateChecks(results);
  lines.push("", ...checks.map((c) => `- ${c.rule}: ${c.value}, ${mark(c.pass)}`));
  return lines;
}

export function renderMarkdown(results) {
  const checks = checkBudgets(results);
  const lines = [
    ...headerSection(results),
    ...resultsRows(results, checks),
    ...webhookSection(results),
    ...capacitySection(results),
    ...orderSection(results),
    ...directSection(results),
    ...distanceSection(results, checks),
    ...budgetSection(results, checks),
    ...soakSection(results),
    ...soakComparisons(results),
    ...bundleSection(results),
    ...queryPlanSection(results),
    ...renderCostSection(results),
    ...freshIsolatesSection(results),
  ];
  return `${lines.join("\n")}\n`;
}
