// The benchmark scenarios. Each returns the autocannon request list for a
// context `ctx`:
//   ctx.auth        the Authorization header of the bench admin account
//   ctx.today       today in the museum's time zone (the seed's day 0)
//   ctx.saleDate    an open day in the coming week (general tickets)
//   ctx.eventIds    ids of the seeded events
//   ctx.cached      a ticket whose image is cached, and ctx.etag that image's ETag
//   ctx.runId       unique per run (e-mail addresses, Idempotency-Key)
//   ctx.gateAuth    the Authorization header of the bench gate account
//   ctx.days        the capacity pairs' days (seed.mjs, capacityDays), on the "capacity" database
// A scenario's `prepare(env)` runs before its warm-up and `cleanup(env)` at
// its end; env = { base, ctx, count }, `count` the requests the scenario will
// send in all. What they need is made through the running server, as a client
// would make it.
import { addDays } from "../tools/lib/dates.mjs";
import { readTicketCode } from "../tools/lib/ticket-qr.mjs";

const API = "/v1.1";

/** One API call as a client makes it (JSON body, Basic auth). */
export function call(base, auth, method, path, json) {
  return fetch(`${base}${API}${path}`, {
    method,
    headers: { Authorization: auth, ...(json === undefined ? {} : { "Content-Type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
}

/** The response's JSON, or an error that says what answered what. */
export async function expectJson(res, status, what) {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what} answered ${res.status}, expected ${status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** Runs `task(i)` for i in [0, count), at most `parallel` at a time; the results in order. */
export async function inParallel(count, parallel, task) {
  const out = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return out;
}

/** An event dated `date`, a new name each time. */
export const createEvent = async (base, auth, date, name) =>
  expectJson(
    await call(base, auth, "POST", "/special-events", { name: `${name} ${Math.random().toString(36).slice(2, 10)}`, location: "Great Hall", eventDescription: "An event of the bench.", dates: [date], price: 12 }),
    201,
    "creating an event",
  );

/** `count` tickets sold for today, each the code a gate scans, read from its image's QR code (never signed here). */
async function ticketCodesForToday({ base, ctx, count }) {
  const event = await createEvent(base, ctx.auth, ctx.today, "Bench gate");
  return inParallel(count, 4, async (n) => {
    const body = { ticketType: "event", eventId: event.eventId, ticketDate: ctx.today, email: `gate-${ctx.runId}-${n}@example.com` };
    const sold = await expectJson(await call(base, ctx.auth, "POST", "/tickets", body), 201, "selling a ticket for today");
    const image = await call(base, ctx.auth, "GET", `/tickets/${sold.ticketId}/qr`);
    if (image.status !== 200) throw new Error(`its image answered ${image.status}`);
    return readTicketCode(new Uint8Array(await image.arrayBuffer()));
  });
}

const json = (ctx) => ({ Authorization: ctx.auth, Accept: "application/json" });

/** A request whose path (and maybe body) changes per request, from a shared counter. */
function rotating(build) {
  let n = 0;
  return {
    setupRequest(req) {
      const extra = build(n);
      n += 1;
      return { ...req, ...extra, headers: { ...req.headers, ...extra.headers } };
    },
  };
}

function purchaseBody(ctx, n, date = ctx.saleDate, extra = {}) {
  return JSON.stringify({
    ticketType: "general",
    ticketDate: date,
    email: `bench-${ctx.runId}-${n}@example.com`,
    ...extra,
  });
}

export const yearQuery = (ctx) => `startDate=${ctx.today}&endDate=${addDays(ctx.today, 365)}`;

/** A purchase whose response's ticket id the next request of the same connection uses (autocannon's context). */
function purchaseRemembered(ctx) {
  return {
    method: "POST",
    path: `${API}/tickets`,
    headers: { ...json(ctx), "Content-Type": "application/json" },
    ...rotating((n) => ({ body: purchaseBody(ctx, `kiosk-${n}`) })),
    onResponse(status, body, context) {
      if (status === 201) context.ticketId = JSON.parse(body).ticketId;
    },
  };
}

/** The image of a ticket this connection bought: `pick(context)` names it (the last one by default). */
function imageOfPurchase(ctx, pick = (context) => context.ticketId) {
  return {
    method: "GET",
    headers: { Authorization: ctx.auth },
    setupRequest: (req, context) => ({ ...req, path: `${API}/tickets/${pick(context)}/qr` }),
  };
}

/** The lines of the orders scenarios: general tickets for one day. */
export const ORDER_LINES = 4;

/** `POST /orders` of ORDER_LINES general tickets for `date`, a new buyer each time. */
function orderOfGeneral(ctx, id, date, remember) {
  return {
    method: "POST",
    path: `${API}/orders`,
    headers: { ...json(ctx), "Content-Type": "application/json" },
    ...rotating((n) => ({
      body: JSON.stringify({
        email: `bench-${ctx.runId}-${id}-${n}@example.com`,
        tickets: Array.from({ length: ORDER_LINES }, () => ({ ticketType: "general", ticketDate: date })),
      }),
    })),
    onResponse(status, body, context) {
      if (remember && status === 201) context.orderTicketIds = JSON.parse(body).tickets.map((t) => t.ticketId);
    },
  };
}

/** The gate's scan: each request admits the next code of `ctx.admissionCodes` (a ticket never admitted). */
function admitNextCode(ctx) {
  return {
    method: "POST",
    path: `${API}/admissions`,
    headers: { Authorization: ctx.gateAuth, Accept: "application/json", "Content-Type": "application/json" },
    // Out of codes: a body the API refuses, so the run reports failures rather than admitting a ticket twice.
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ code: ctx.admissionCodes.shift() ?? "" }) }),
  };
}

/** An event a year away, a new name each time. */
function eventCreate(ctx) {
  return {
    method: "POST",
    path: `${API}/special-events`,
    headers: { ...json(ctx), "Content-Type": "application/json" },
    ...rotating((n) => ({
      body: JSON.stringify({
        name: `Bench created ${ctx.runId} ${n} ${Math.random().toString(36).slice(2, 8)}`,
        location: "Hall 1",
        eventDescription: "An event created by the benchmark.",
        dates: [addDays(ctx.today, 300)],
        price: 10,
      }),
    })),
  };
}

/** Webhook subscriptions of the "create with subscriptions" scenario (issue 13). */
const BENCH_SUBSCRIPTIONS = 5;

/** Where they point: nothing is delivered, as the pair's server has no Queue consumer. */
const UNDELIVERED_HOOK = "http://127.0.0.1:9/bench-hook";

/** What issue 13's pair has in common: the same requests, the same amount. */
const EVENT_CREATES = {
  db: "small",
  kind: "webhooks",
  mode: "amount",
  amount: (cfg) => cfg.eventCreates,
  warmup: 20,
  expect: [201],
  requests: (ctx) => [eventCreate(ctx)],
};

/** Limits far from reached: a day's capacity and its slots' (docs/capacity.md). */
const FAR_LIMITS = { closed: false, timeOpen: "09:00", timeClose: "18:00", capacity: 100_000, entrySlotMinutes: 30, slotCapacity: 100_000 };

/** One side of an alternating pair: `amount(cfg)` requests of `request(ctx)`, one at a time, after 20 of warm-up. */
function pairSide({ id, title, db, kind, amount, request, prepare }) {
  return { id, title, db, kind, mode: "amount", amount, warmup: 20, expect: [201], prepare, requests: (ctx) => [request(ctx)] };
}

/** A general sale (`POST /tickets`) for the day `day(ctx)` (`extra`: more of the purchase's fields). */
function generalSale(ctx, id, day, extra) {
  return {
    method: "POST",
    path: `${API}/tickets`,
    headers: { ...json(ctx), "Content-Type": "application/json" },
    ...rotating((n) => ({ body: purchaseBody(ctx, `${id}-${n}`, day(ctx), extra) })),
  };
}

/**
 * What issue 20's pairs have in common: general sales, one at a time, on the day `day(ctx)`
 * (`extra`: more of the purchase's fields), the same amount on both sides.
 */
function capacitySale({ id, title, day, extra, prepare }) {
  return pairSide({ id, title, db: "capacity", kind: "capacity", amount: (cfg) => cfg.pairSales, prepare, request: (ctx) => generalSale(ctx, id, day, extra) });
}

/**
 * Issue 21's pair (ORDER_PAIRS): an order of ORDER_LINES general tickets against a single general
 * purchase, both for the week's open sale day (ctx.saleDate: no limits, so never sold out).
 */
function orderPairSide({ id, title, request }) {
  return pairSide({ id, title, db: "small", kind: "order-pair", amount: (cfg) => cfg.orderPairSales, request });
}

const ALTERNATING = "Miniflare directly with no Queue consumer (no delivery runs in the metered process), one connection, the sides alternating round after round (A B, B A…); the budget is on the median of the rounds' ratios.";
const PROFILED = " The Worker's isolate under V8's profiler: its busy samples per request are its own CPU, apart from local D1's and the local Queue broker's.";

/** The alternating pairs (each run in its pass of bench/run.mjs), their measures and budgets. */
export const PAIRS = [
  { pass: "webhooks", baseline: "event-create", subject: "event-create-hooks", budget: 1.2, measures: ["latency", "isolate"], method: ALTERNATING + PROFILED },
  { pass: "capacity", baseline: "sale-empty-day", subject: "sale-full-day", budget: 1.2, measures: ["latency", "isolate"], method: ALTERNATING + PROFILED + " The pre-render off." },
  { pass: "capacity", baseline: "sale-unlimited-day", subject: "sale-limited-day", budget: 1.2, measures: ["latency", "isolate"], method: ALTERNATING + PROFILED + " The pre-render off." },
  // The budget with the pre-render off: each ticket's render is the same work sold alone or in an order (docs/performance.md).
  { pass: "orders", baseline: "order-single", subject: "order-four", budget: 2, budgetOn: [], measures: ["cpu"], where: " (the pre-render on)", method: ALTERNATING },
  { pass: "ordersNoPrerender", baseline: "order-single", subject: "order-four", budget: 2, measures: ["cpu"], where: " (the pre-render off)", method: ALTERNATING },
];

/**
 * `db`: which seeded database the scenario runs against ("small": 100 events,
 * "large": 100,000). `mode`: "duration" (fixed time, fixed connections) or
 * "amount" (a fixed number of requests: `amount(cfg)`, after `warmup`
 * requests). `kind`: "static", "json" (a JSON
 * endpoint, under the throughput budget), "qr", "kiosk", "gate", "webhooks", "capacity" and
 * "order-pair" (run only in their pairs' passes). `hot`: a hot path,
 * run again at a D1 distance (--d1-rtt) and held to its budget there.
 * `sequence`: the scenario's requests are one kiosk's steps, sent one after
 * the other on one connection; its latency is the whole sequence's.
 * A new route's scenario is one entry.
 */
export const SCENARIOS = [
  {
    id: "static",
    title: "`GET /` (static; the baseline)",
    db: "small",
    kind: "static",
    expect: [200],
    requests: () => [{ method: "GET", path: "/" }],
  },
  {
    id: "event-get",
    hot: true,
    title: "`GET /special-events/{id}`",
    db: "small",
    kind: "json",
    expect: [200],
    requests: (ctx) => [
      { method: "GET", headers: json(ctx), ...rotating((n) => ({ path: `${API}/special-events/${ctx.eventIds[n % ctx.eventIds.length]}` })) },
    ],
  },
  {
    id: "events-list",
    hot: true,
    title: "`GET /special-events` (default window)",
    db: "small",
    kind: "json",
    expect: [200],
    requests: (ctx) => [{ method: "GET", path: `${API}/special-events`, headers: json(ctx) }],
  },
  {
    id: "events-year-100",
    title: "`GET /special-events`, a year, 100 events stored",
    db: "small",
    kind: "json",
    expect: [200],
    requests: (ctx) => [{ method: "GET", path: `${API}/special-events?${yearQuery(ctx)}`, headers: json(ctx) }],
  },
  {
    id: "hours",
    hot: true,
    title: "`GET /museum-hours`",
    db: "small",
    kind: "json",
    expect: [200],
    requests: (ctx) => [{ method: "GET", path: `${API}/museum-hours`, headers: json(ctx) }],
  },
  {
    id: "tickets-buy",
    hot: true,
    title: "`POST /tickets` (unique bodies)",
    db: "small",
    kind: "json",
    expect: [201],
    requests: (ctx) => [
      {
        method: "POST",
        path: `${API}/tickets`,
        headers: { ...json(ctx), "Content-Type": "application/json" },
        ...rotating((n) => ({ body: purchaseBody(ctx, n) })),
      },
    ],
  },
  {
    id: "tickets-replay",
    hot: true,
    title: "`POST /tickets` replayed (one Idempotency-Key)",
    db: "small",
    kind: "json",
    expect: [201],
    requests: (ctx) => [
      {
        method: "POST",
        path: `${API}/tickets`,
        headers: {
          ...json(ctx),
          "Content-Type": "application/json",
          "Idempotency-Key": `bench-replay-${ctx.runId}`,
        },
        body: purchaseBody(ctx, "replay"),
      },
    ],
  },
  {
    id: "qr-cached",
    hot: true,
    title: "`GET /tickets/{id}/qr` cached (same ticket, 200 with the PNG)",
    db: "small",
    kind: "qr",
    expect: [200],
    requests: (ctx) => [{ method: "GET", path: `${API}/tickets/${ctx.cached}/qr`, headers: { Authorization: ctx.auth } }],
  },
  {
    id: "qr-304",
    hot: true,
    title: "`GET /tickets/{id}/qr` with `If-None-Match` (304)",
    db: "small",
    kind: "qr",
    expect: [304],
    requests: (ctx) => [
      {
        method: "GET",
        path: `${API}/tickets/${ctx.cached}/qr`,
        headers: { Authorization: ctx.auth, "If-None-Match": ctx.etag },
      },
    ],
  },
  {
    id: "kiosk-buy",
    title: "kiosk: buy a ticket (one kiosk, one connection)",
    db: "small",
    kind: "kiosk",
    hot: true,
    connections: 1,
    expect: [201],
    requests: (ctx) => [purchaseRemembered(ctx)],
  },
  {
    id: "kiosk-buy-fetch",
    title: "kiosk: buy a ticket, then fetch its image (one connection; latency of the pair)",
    db: "small",
    kind: "kiosk",
    hot: true,
    connections: 1,
    sequence: 2,
    expect: [200, 201],
    requests: (ctx) => [purchaseRemembered(ctx), imageOfPurchase(ctx)],
  },
  {
    id: "kiosk-order-fetch",
    title: `kiosk: buy an order of ${ORDER_LINES}, then fetch its ${ORDER_LINES} images (one connection; latency of the sequence)`,
    db: "small",
    kind: "kiosk",
    connections: 1,
    sequence: 1 + ORDER_LINES,
    expect: [200, 201],
    requests: (ctx) => [
      orderOfGeneral(ctx, "kiosk-order", ctx.saleDate, true),
      ...Array.from({ length: ORDER_LINES }, (_, i) => imageOfPurchase(ctx, (context) => context.orderTicketIds[i])),
    ],
  },
  {
    id: "kiosk-fetch",
    title: "kiosk: fetch a cached image (one connection)",
    db: "small",
    kind: "kiosk",
    hot: true,
    connections: 1,
    expect: [200],
    requests: (ctx) => [{ method: "GET", path: `${API}/tickets/${ctx.cached}/qr`, headers: { Authorization: ctx.auth } }],
  },
  {
    id: "admit",
    title: "gate: admit a ticket (`POST /admissions`, a ticket sold for today and never admitted each request, 1 connection)",
    db: "small",
    kind: "gate",
    hot: true,
    mode: "amount",
    amount: (cfg) => cfg.admissions,
    warmup: 5,
    connections: 1,
    expect: [201],
    async prepare(env) {
      env.ctx.admissionCodes = await ticketCodesForToday({ base: env.base, ctx: env.ctx, count: env.count });
    },
    requests: (ctx) => [admitNextCode(ctx)],
  },
  {
    id: "event-create",
    title: "`POST /special-events`, no webhook subscriptions",
    ...EVENT_CREATES,
  },
  {
    id: "event-create-hooks",
    title: `\`POST /special-events\`, ${BENCH_SUBSCRIPTIONS} webhook subscriptions (their messages sent to the Queue)`,
    ...EVENT_CREATES,
    async prepare(env) {
      const subscribe = async (i) => call(env.base, env.ctx.auth, "POST", "/webhooks", { url: UNDELIVERED_HOOK, description: `bench ${i}` });
      env.subscriptions = await inParallel(BENCH_SUBSCRIPTIONS, 1, async (i) => (await expectJson(await subscribe(i), 201, "a subscription")).webhookId);
    },
    async cleanup(env) {
      for (const id of env.subscriptions) await expectJson(await call(env.base, env.ctx.auth, "DELETE", `/webhooks/${id}`), 204, "ending a subscription");
    },
  },
  capacitySale({
    id: "sale-full-day",
    title: "`POST /tickets` general, a day with 10,000 tickets sold",
    day: (ctx) => ctx.days.full,
  }),
  capacitySale({
    id: "sale-empty-day",
    title: "`POST /tickets` general, an empty day (a new one each round)",
    day: (ctx) => ctx.emptyDay,
    async prepare(env) {
      env.ctx.emptyDay = env.ctx.days.empty.shift();
      if (!env.ctx.emptyDay) throw new Error("no empty day left for this round (seed.mjs, capacityDays)");
    },
  }),
  capacitySale({
    id: "sale-limited-day",
    title: "`POST /tickets` general, a day with a capacity and 30-minute entry slots (far from reached)",
    day: (ctx) => ctx.days.limited,
    extra: { entryTime: "09:30" },
    async prepare(env) {
      const res = await call(env.base, env.ctx.auth, "PUT", `/museum-hours/exceptions/${env.ctx.days.limited}`, FAR_LIMITS);
      const body = await res.text();
      if (res.status !== 200 && res.status !== 201) throw new Error(`giving the day limits answered ${res.status}: ${body.slice(0, 300)}`);
    },
  }),
  capacitySale({
    id: "sale-unlimited-day",
    title: "`POST /tickets` general, a day without limits",
    day: (ctx) => ctx.days.unlimited,
  }),
  orderPairSide({
    id: "order-single",
    title: "`POST /tickets`, one general ticket",
    request: (ctx) => generalSale(ctx, "order-single", (c) => c.saleDate),
  }),
  orderPairSide({
    id: "order-four",
    title: `\`POST /orders\`, ${ORDER_LINES} general tickets for one day`,
    request: (ctx) => orderOfGeneral(ctx, "order-four", ctx.saleDate),
  }),
  {
    id: "static-100k",
    title: "`GET /` (static), server with 100,000 events",
    db: "large",
    kind: "static",
    expect: [200],
    requests: () => [{ method: "GET", path: "/" }],
  },
  {
    id: "events-year-100k",
    title: "`GET /special-events`, a year, 100,000 events stored",
    db: "large",
    kind: "json",
    expect: [200],
    requests: (ctx) => [{ method: "GET", path: `${API}/special-events?${yearQuery(ctx)}`, headers: json(ctx) }],
  },
];
