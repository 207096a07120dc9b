// The benchmark scenarios. Each returns the autocannon request list for a
// context `ctx`:
//   ctx.auth        the Authorization header of the bench admin account
//   ctx.today       today in the museum's time zone (the seed's day 0)
//   ctx.saleDate    an open day in the coming week (general tickets)
//   ctx.eventIds    ids of the seeded events
//   ctx.tickets     { first: [...ids], cached: id, soak: [...ids] }
//   ctx.etag        the ETag of ctx.tickets.cached's image
//   ctx.runId       unique per run (e-mail addresses, Idempotency-Key)
//   ctx.gateAuth    the Authorization header of the bench gate account
//   ctx.days        the capacity pairs' days (seed.mjs, capacityDays), on the "capacity" database
// A scenario's `prepare(env)` runs before its warm-up, `settle(env)` after the
// warm-up and after the load (waiting for work the Worker does off the
// request path), `cleanup(env)` at its end; env = { base, ctx, cfg, receiver,
// count }, `count` the requests the scenario will send in all (warm-up and
// round-trip measurement included).
import { addDays } from "../tools/lib/dates.mjs";
import { call, subscribe, ticketCodesForToday, unsubscribe, waitForDeliveries } from "./scenario-setup.mjs";

const API = "/v1.1";

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

/** An event a year away, a new name each time; counts the events created (`ctx.eventsCreated`). */
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
    onResponse(status) {
      if (status === 201) ctx.eventsCreated = (ctx.eventsCreated ?? 0) + 1;
    },
  };
}

/** Webhook subscriptions of the "create with subscriptions" scenario (issue 13). */
const BENCH_SUBSCRIPTIONS = 5;

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

/** Issue 20's pairs: each subject against its baseline, alternating round after round. */
export const CAPACITY_PAIRS = [
  { baseline: "sale-empty-day", subject: "sale-full-day", budget: 1.2 },
  { baseline: "sale-unlimited-day", subject: "sale-limited-day", budget: 1.2 },
];

/** Issue 21's pair: an order of 4 at most 2× a single purchase in Worker CPU (with the pre-render off: docs/performance.md). */
export const ORDER_PAIRS = [{ baseline: "order-single", subject: "order-four", budget: 2 }];

/**
 * `db`: which seeded database the scenario runs against ("small": 100 events,
 * "large": 100,000). `mode`: "duration" (fixed time, fixed connections) or
 * "amount" (a fixed number of requests: `amount(cfg)`, default
 * cfg.qrFirstRequests, after `warmup` requests). `kind`: "static", "json" (a JSON
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
    id: "qr-first",
    title: "`GET /tickets/{id}/qr` first render (a new ticket each request)",
    db: "small",
    kind: "qr-first",
    mode: "amount",
    connections: 1,
    expect: [200],
    requests: (ctx) => [
      {
        method: "GET",
        headers: { Authorization: ctx.auth },
        ...rotating((n) => ({ path: `${API}/tickets/${ctx.tickets.first[n % ctx.tickets.first.length]}/qr` })),
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
    requests: (ctx) => [{ method: "GET", path: `${API}/tickets/${ctx.tickets.cached}/qr`, headers: { Authorization: ctx.auth } }],
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
        path: `${API}/tickets/${ctx.tickets.cached}/qr`,
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
    requests: (ctx) => [{ method: "GET", path: `${API}/tickets/${ctx.tickets.cached}/qr`, headers: { Authorization: ctx.auth } }],
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
    title: `\`POST /special-events\`, ${BENCH_SUBSCRIPTIONS} webhook subscriptions (delivered through the Queue to a loopback receiver)`,
    ...EVENT_CREATES,
    receiver: true,
    async prepare(env) {
      env.subscriptions = await subscribe({ base: env.base, ctx: env.ctx, url: env.receiver.url, count: BENCH_SUBSCRIPTIONS });
      env.ctx.eventsCreated = 0;
      env.deliveriesBefore = env.receiver.received();
    },
    /** Until the receiver has one delivery per subscription for every event created so far. */
    settle: (env) => waitForDeliveries(env.receiver, env.deliveriesBefore + BENCH_SUBSCRIPTIONS * env.ctx.eventsCreated),
    cleanup: (env) => unsubscribe({ base: env.base, ctx: env.ctx, ids: env.subscriptions ?? [] }),
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

/**
 * The soak mix (issue 7): reads, purchases and QR fetches, weighted, for a
 * fixed time. QR fetches pick from a pool larger than the image memory cache
 * (256), so renders, edge-cache hits and memory hits all occur.
 */
export function soakRequests(ctx) {
  const mix = [
    [25, (n) => ({ method: "GET", path: `${API}/special-events` })],
    [10, (n) => ({ method: "GET", path: `${API}/special-events?${yearQuery(ctx)}` })],
    [15, (n) => ({ method: "GET", path: `${API}/special-events/${ctx.eventIds[n % ctx.eventIds.length]}` })],
    [15, () => ({ method: "GET", path: `${API}/museum-hours` })],
    [
      15,
      (n) => ({
        method: "POST",
        path: `${API}/tickets`,
        headers: { "Content-Type": "application/json" },
        body: purchaseBody(ctx, `soak-${n}`),
      }),
    ],
    [20, (n) => ({ method: "GET", path: `${API}/tickets/${ctx.tickets.soak[(n * 7919) % ctx.tickets.soak.length]}/qr` })],
  ];
  const total = mix.reduce((s, [w]) => s + w, 0);
  // A fixed pseudo-random sequence (LCG), so every run sends the same mix.
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  let n = 0;
  return [
    {
      method: "GET",
      path: "/",
      setupRequest(req) {
        let pick = next() * total;
        const [, build] = mix.find(([w]) => (pick -= w) < 0) ?? mix[0];
        const extra = build(n);
        n += 1;
        const out = { ...req, body: undefined, ...extra, headers: { ...req.headers, Authorization: ctx.auth, ...extra.headers } };
        if (out.method === "GET") delete out.headers["Content-Type"];
        return out;
      },
    },
  ];
}
