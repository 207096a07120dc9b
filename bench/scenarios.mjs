// The benchmark scenarios and the alternating pairs. A scenario's
// `requests(ctx)` is autocannon's request list, for a context:
//   ctx.auth, ctx.gateAuth   Authorization headers of the bench admin and gate accounts
//   ctx.resellerAuth, ctx.octoAuth   a reseller's (a sales account): Basic, and Bearer with its OCTO API key
//                            (none in a checkout from before OCTO: a scenario marked `reseller` is skipped there)
//   ctx.today, ctx.saleDate  today in the museum's time zone; an open day in the coming week
//   ctx.eventIds             the seeded events
//   ctx.cached, ctx.etag     a ticket whose image is cached, and its ETag
//   ctx.runId                unique per run (e-mail addresses, Idempotency-Key)
//   ctx.days                 the capacity pairs' days (seed.mjs, capacityDays)
// `prepare(env)` runs before its warm-up and `cleanup(env)` at its end, with
// env = { base, ctx, count } (`count`: the requests it will send in all); what
// they need is made through the running server, as a client would make it.
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

const json = (ctx) => ({ Authorization: ctx.auth, Accept: "application/json", "Content-Type": "application/json" });

/** A request; `vary(n)` gives what changes from one request to the next (a path, a body). */
function request(method, path, headers, vary, onResponse) {
  let n = 0;
  const setupRequest = vary && ((req, context) => ({ ...req, ...vary(n++, context) }));
  return { method, path: path && `${API}${path}`, headers, ...(setupRequest ? { setupRequest } : {}), ...(onResponse ? { onResponse } : {}) };
}

const get = (ctx, path) => request("GET", path, { Authorization: ctx.auth, Accept: "application/json" });

/** `POST /tickets` of a general ticket for `day(ctx)`, a new buyer each time; `remember`: the next request's image is its. */
const sale = (ctx, id, day = (c) => c.saleDate, extra = {}, remember = false) =>
  request("POST", "/tickets", json(ctx), (n) => ({ body: JSON.stringify({ ticketType: "general", ticketDate: day(ctx), email: `bench-${ctx.runId}-${id}-${n}@example.com`, ...extra }) }),
    remember ? (status, body, context) => status === 201 && (context.ticketIds = [JSON.parse(body).ticketId]) : undefined);

/** The lines of an order: general tickets for one day. */
const ORDER_LINES = 4;

const order = (ctx, id, remember = false) =>
  request("POST", "/orders", json(ctx), (n) => ({ body: JSON.stringify({ email: `bench-${ctx.runId}-${id}-${n}@example.com`, tickets: Array.from({ length: ORDER_LINES }, () => ({ ticketType: "general", ticketDate: ctx.saleDate })) }) }),
    remember ? (status, body, context) => status === 201 && (context.ticketIds = JSON.parse(body).tickets.map((t) => t.ticketId)) : undefined);

/** `POST /orders` of one general ticket (`line`: more of it): sold at once, or (`holdMinutes`) held, its orderId remembered for the confirmation. */
const oneTicketOrder = (ctx, id, held, line = {}) =>
  request("POST", "/orders", json(ctx), (n) => ({
    body: JSON.stringify({ ...(held ? { holdMinutes: 15 } : { email: `bench-${ctx.runId}-${id}-${n}@example.com` }), tickets: [{ ticketType: "general", ticketDate: ctx.saleDate, ...line }] }),
  }), held ? (status, body, context) => status === 201 && (context.orderId = JSON.parse(body).orderId) : undefined);

/** The confirmation of the order this connection just held, with the buyer's e-mail (a shop learns it while the buyer pays). */
const confirmation = (ctx, id) =>
  request("POST", undefined, json(ctx), (n, context) => ({ path: `${API}/orders/${context.orderId}/confirmation`, body: JSON.stringify({ email: `bench-${ctx.runId}-${id}-${n}@example.com` }) }));

/** The reseller's requests on /v1.1: its own Basic auth, the account its OCTO API key belongs to. */
const asReseller = (ctx) => ({ ...ctx, auth: ctx.resellerAuth });

const OCTO = "/octo";
const octoHeaders = (ctx) => ({ Authorization: ctx.octoAuth, Accept: "application/json", "Content-Type": "application/json" });
/** A reseller's `POST` under /octo; `vary(n, context)` gives its path (under /octo) and body. */
const octo = (ctx, vary, onResponse) =>
  request("POST", undefined, octoHeaders(ctx), (n, context) => {
    const { path, body } = vary(n, context);
    return { path: `${OCTO}${path}`, body: JSON.stringify(body) };
  }, onResponse);

/** OCTO's availability of general admission on the sale date (the check; one day). */
const octoAvailabilityQuery = (ctx) => ({ productId: "general", optionId: "DEFAULT", localDateStart: ctx.saleDate, localDateEnd: ctx.saleDate });

/** Learns the sale date's availability id (the day's opening) before a scenario that books it. */
async function octoSaleAvailability({ base, ctx }) {
  if (ctx.octoAvailabilityId) return;
  const res = await fetch(`${base}${OCTO}/availability`, { method: "POST", headers: octoHeaders(ctx), body: JSON.stringify(octoAvailabilityQuery(ctx)) });
  const [first] = await expectJson(res, 200, "OCTO's availability of the sale date");
  if (!first?.available) throw new Error(`the sale date ${ctx.saleDate} has no OCTO availability on sale`);
  ctx.octoAvailabilityId = first.id;
}

/** `POST /octo/bookings` of one adult on the sale date (held 15 minutes), its uuid remembered for the confirmation. */
const octoHold = (ctx) =>
  octo(ctx, () => ({ path: "/bookings", body: { productId: "general", optionId: "DEFAULT", availabilityId: ctx.octoAvailabilityId, expirationMinutes: 15, unitItems: [{ unitId: "adult" }] } }),
    (status, body, context) => status === 200 && (context.uuid = JSON.parse(body).uuid));

/** The confirmation of the booking this connection just held, with the buyer's e-mail. */
const octoConfirm = (ctx, id) => octo(ctx, (n, context) => ({ path: `/bookings/${context.uuid}/confirm`, body: { contact: { emailAddress: `bench-${ctx.runId}-${id}-${n}@example.com` } } }));

/** The image of the i-th ticket this connection just bought. */
const imageBought = (ctx, i = 0) => request("GET", undefined, { Authorization: ctx.auth }, (n, context) => ({ path: `${API}/tickets/${context.ticketIds[i]}/qr` }));

const cachedImage = (ctx, headers = {}) => request("GET", `/tickets/${ctx.cached}/qr`, { Authorization: ctx.auth, ...headers });

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

/** Webhook subscriptions of the pair's subject, pointing where nothing is delivered (its server has no Queue consumer). */
const SUBSCRIPTIONS = 5;

/** Limits far from reached: a day's capacity and its slots' (docs/capacity.md). */
const FAR_LIMITS = { closed: false, timeOpen: "09:00", timeClose: "18:00", capacity: 100_000, entrySlotMinutes: 30, slotCapacity: 100_000 };

/** The days of the calendar pair's month view. */
const CALENDAR_DAYS = 31;

const yearQuery = (ctx) => `startDate=${ctx.today}&endDate=${addDays(ctx.today, 365)}`;

/** A scenario of a fixed time at the run's connections; `hot`: run again at a D1 distance (--d1-rtt). */
const timed = (id, title, kind, expect, requests, more = {}) => ({ id, title, db: "small", kind, expect: [expect], requests, ...more });

/** A kiosk: one connection, its requests one sequence (latency: the whole sequence's). */
const kiosk = (id, title, requests, more = {}) => ({ id, title, db: "small", kind: "kiosk", connections: 1, expect: [200, 201], sequence: requests({}).length, requests, ...more });

/** One side of an alternating pair: `amount(cfg)` requests, one at a time, after 20 of warm-up. */
const pairSide = (id, title, kind, amount, requests, more = {}) => ({ id, title, db: "small", kind, mode: "amount", amount, warmup: 20, expect: [201], requests, ...more });
const capacitySale = (id, title, day, more = {}) => pairSide(id, title, "capacity", (cfg) => cfg.pairSales, (ctx) => [sale(ctx, id, day, more.extra)], { db: "capacity", ...more });
const eventCreates = (ctx) => [request("POST", "/special-events", json(ctx), (n) => ({ body: JSON.stringify({ name: `Bench created ${ctx.runId} ${n}`, location: "Hall 1", eventDescription: "An event created by the benchmark.", dates: [addDays(ctx.today, 300)], price: 10 }) }))];

export const SCENARIOS = [
  timed("static", "`GET /` (static; the baseline)", "static", 200, () => [{ method: "GET", path: "/" }]),
  timed("event-get", "`GET /special-events/{id}`", "json", 200, (ctx) => [request("GET", undefined, get(ctx).headers, (n) => ({ path: `${API}/special-events/${ctx.eventIds[n % ctx.eventIds.length]}` }))], { hot: true }),
  timed("events-list", "`GET /special-events` (default window)", "json", 200, (ctx) => [get(ctx, "/special-events")], { hot: true }),
  timed("events-year-100", "`GET /special-events`, a year, 100 events stored", "json", 200, (ctx) => [get(ctx, `/special-events?${yearQuery(ctx)}`)]),
  timed("hours", "`GET /museum-hours`", "json", 200, (ctx) => [get(ctx, "/museum-hours")], { hot: true }),
  timed("tickets-buy", "`POST /tickets` (unique bodies)", "json", 201, (ctx) => [sale(ctx, "buy")], { hot: true }),
  timed("tickets-replay", "`POST /tickets` replayed (one Idempotency-Key)", "json", 201, (ctx) => [
    { ...request("POST", "/tickets", { ...json(ctx), "Idempotency-Key": `bench-replay-${ctx.runId}` }), body: JSON.stringify({ ticketType: "general", ticketDate: ctx.saleDate, email: `bench-${ctx.runId}-replay@example.com` }) },
  ], { hot: true }),
  timed("qr-cached", "`GET /tickets/{id}/qr` cached (same ticket, 200 with the PNG)", "qr", 200, (ctx) => [cachedImage(ctx)], { hot: true }),
  timed("qr-304", "`GET /tickets/{id}/qr` with `If-None-Match` (304)", "qr", 304, (ctx) => [cachedImage(ctx, { "If-None-Match": ctx.etag })], { hot: true }),
  kiosk("kiosk-buy", "kiosk: buy a ticket (one kiosk, one connection)", (ctx) => [sale(ctx, "kiosk")], { hot: true }),
  kiosk("kiosk-buy-fetch", "kiosk: buy a ticket, then fetch its image (one connection; latency of the pair)", (ctx) => [sale(ctx, "kiosk-pair", undefined, {}, true), imageBought(ctx)], { hot: true }),
  kiosk("kiosk-order-fetch", `kiosk: buy an order of ${ORDER_LINES}, then fetch its ${ORDER_LINES} images (one connection; latency of the sequence)`, (ctx) => [
    order(ctx, "kiosk-order", true),
    ...Array.from({ length: ORDER_LINES }, (_, i) => imageBought(ctx, i)),
  ]),
  kiosk("kiosk-fetch", "kiosk: fetch a cached image (one connection)", (ctx) => [cachedImage(ctx)], { hot: true }),
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
    // Served again in a pass of its own, profiled: the isolate's CPU spent verifying codes (issue 31's budget).
    cpuWithin: [{ fn: "verifyTicketCodeWith", what: "verifying a code", budgetMs: 1 }],
    async prepare(env) {
      env.ctx.admissionCodes = await ticketCodesForToday({ base: env.base, ctx: env.ctx, count: env.count });
    },
    // Out of codes: a body the API refuses, so the run reports failures rather than admitting a ticket twice.
    requests: (ctx) => [request("POST", "/admissions", { Authorization: ctx.gateAuth, Accept: "application/json", "Content-Type": "application/json" }, () => ({ body: JSON.stringify({ code: ctx.admissionCodes.shift() ?? "" }) }))],
  },
  pairSide("event-create", "`POST /special-events`, no webhook subscriptions", "webhooks", (cfg) => cfg.eventCreates, eventCreates),
  pairSide("event-create-hooks", `\`POST /special-events\`, ${SUBSCRIPTIONS} webhook subscriptions (their messages sent to the Queue)`, "webhooks", (cfg) => cfg.eventCreates, eventCreates, {
    async prepare(env) {
      const subscribe = async (i) => call(env.base, env.ctx.auth, "POST", "/webhooks", { url: "http://127.0.0.1:9/bench-hook", description: `bench ${i}` });
      env.subscriptions = await inParallel(SUBSCRIPTIONS, 1, async (i) => (await expectJson(await subscribe(i), 201, "a subscription")).webhookId);
    },
    async cleanup(env) {
      for (const id of env.subscriptions) await expectJson(await call(env.base, env.ctx.auth, "DELETE", `/webhooks/${id}`), 204, "ending a subscription");
    },
  }),
  capacitySale("sale-full-day", "`POST /tickets` general, a day with 10,000 tickets sold", (ctx) => ctx.days.full),
  capacitySale("sale-empty-day", "`POST /tickets` general, an empty day (a new one each round)", (ctx) => ctx.emptyDay, {
    async prepare(env) {
      env.ctx.emptyDay = env.ctx.days.empty.shift();
      if (!env.ctx.emptyDay) throw new Error("no empty day left for this round (seed.mjs, capacityDays)");
    },
  }),
  capacitySale("sale-limited-day", "`POST /tickets` general, a day with a capacity and 30-minute entry slots (far from reached)", (ctx) => ctx.days.limited, {
    extra: { entryTime: "09:30" },
    async prepare(env) {
      const res = await call(env.base, env.ctx.auth, "PUT", `/museum-hours/exceptions/${env.ctx.days.limited}`, FAR_LIMITS);
      if (res.status !== 200 && res.status !== 201) throw new Error(`giving the day limits answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    },
  }),
  capacitySale("sale-unlimited-day", "`POST /tickets` general, a day without limits", (ctx) => ctx.days.unlimited),
  pairSide("order-single", "`POST /tickets`, one general ticket", "order-pair", (cfg) => cfg.orderPairSales, (ctx) => [sale(ctx, "order-single")]),
  pairSide("order-four", `\`POST /orders\`, ${ORDER_LINES} general tickets for one day`, "order-pair", (cfg) => cfg.orderPairSales, (ctx) => [order(ctx, "order-four")]),
  pairSide("availability-day", "`GET /availability`, one day", "calendar-pair", (cfg) => cfg.calendarReads, (ctx) => [get(ctx, `/availability?date=${ctx.saleDate}`)], { expect: [200] }),
  pairSide("availability-calendar", `\`GET /availability/calendar\`, ${CALENDAR_DAYS} days`, "calendar-pair", (cfg) => cfg.calendarReads, (ctx) => [get(ctx, `/availability/calendar?startDate=${ctx.saleDate}&endDate=${addDays(ctx.saleDate, CALENDAR_DAYS - 1)}`)], { expect: [200] }),
  pairSide("order-direct", "`POST /orders`, one general ticket sold at once", "hold-pair", (cfg) => cfg.holdPairSales, (ctx) => [oneTicketOrder(ctx, "order-direct", false)]),
  pairSide("order-hold-confirm", "`POST /orders` with `holdMinutes`, then `POST /orders/{id}/confirmation` (one purchase: both requests)", "hold-pair", (cfg) => 2 * cfg.holdPairSales, (ctx) => [oneTicketOrder(ctx, "order-hold", true), confirmation(ctx, "order-hold")], { sequence: 2, expect: [200, 201] }),
  // The hold pair's parts, for reference (no budget): a hold alone, and the floor a confirmation cannot go below, an authenticated read of one order.
  pairSide("order-hold", "`POST /orders` with `holdMinutes` alone", "hold-pair", (cfg) => cfg.holdPairSales, (ctx) => [oneTicketOrder(ctx, "order-hold-alone", true)]),
  pairSide("order-read", "`GET /orders/{id}`, an order of one ticket", "hold-pair", (cfg) => cfg.holdPairSales, (ctx) => [get(ctx, `/orders/${ctx.readOrderId}`)], {
    expect: [200],
    async prepare(env) {
      env.ctx.readOrderId ??= (await expectJson(await call(env.base, env.ctx.auth, "POST", "/orders", { email: `bench-${env.ctx.runId}-read@example.com`, tickets: [{ ticketType: "general", ticketDate: env.ctx.saleDate }] }), 201, "an order to read")).orderId;
    },
  }),
  // A reseller's one purchase through each door: the same hold of one adult ticket, then its confirmation.
  pairSide("reseller-hold-confirm", "`POST /v1.1/orders` with `holdMinutes`, then its confirmation, by a reseller (one purchase: both requests)", "octo-pair", (cfg) => 2 * cfg.holdPairSales,
    (ctx) => [oneTicketOrder(asReseller(ctx), "reseller-hold", true, { category: "adult" }), confirmation(asReseller(ctx), "reseller-hold")], { sequence: 2, expect: [200, 201], reseller: true }),
  pairSide("octo-hold-confirm", "`POST /octo/bookings`, then `POST /octo/bookings/{uuid}/confirm` (one purchase: both requests)", "octo-pair", (cfg) => 2 * cfg.holdPairSales,
    (ctx) => [octoHold(ctx), octoConfirm(ctx, "octo-hold")], { sequence: 2, expect: [200], reseller: true, prepare: octoSaleAvailability }),
  // What reseller platforms time (p99 at the run's D1 distance): an availability answer, a booking.
  timed("octo-availability", "OCTO `POST /octo/availability`, one day", "octo", 200, (ctx) => [octo(ctx, () => ({ path: "/availability", body: octoAvailabilityQuery(ctx) }))], {
    hot: true, reseller: true, p99Within: { ms: 250, what: "a reseller platform's wait for availability" },
  }),
  {
    id: "octo-booking",
    title: "OCTO: a booking held, then confirmed (one connection; latency of the pair)",
    db: "small",
    kind: "octo",
    connections: 1,
    sequence: 2,
    expect: [200],
    hot: true,
    reseller: true,
    p99Within: { ms: 1000, what: "a reseller platform's wait for a booking" },
    prepare: octoSaleAvailability,
    requests: (ctx) => [octoHold(ctx), octoConfirm(ctx, "octo-booking")],
  },
  timed("static-100k", "`GET /` (static), server with 100,000 events", "static", 200, () => [{ method: "GET", path: "/" }], { db: "large" }),
  timed("events-year-100k", "`GET /special-events`, a year, 100,000 events stored", "json", 200, (ctx) => [get(ctx, `/special-events?${yearQuery(ctx)}`)], { db: "large" }),
];

const ALTERNATING =
  "Miniflare directly with no Queue consumer (no delivery runs in the metered process), one connection, the sides alternating round after round (A B, B A…); the budget is on the median of the rounds' ratios.";
const PROFILED = " The Worker's isolate under V8's profiler: its busy samples per request are its own CPU, apart from local D1's and the local Queue broker's.";

/** The alternating pairs (each in its pass of bench/run.mjs), their measures and budgets. */
export const PAIRS = [
  { pass: "webhooks", baseline: "event-create", subject: "event-create-hooks", budget: 1.2, measures: ["latency", "isolate"], method: ALTERNATING + PROFILED },
  { pass: "capacity", baseline: "sale-empty-day", subject: "sale-full-day", budget: 1.2, measures: ["latency", "isolate"], method: `${ALTERNATING}${PROFILED} The pre-render off.` },
  { pass: "capacity", baseline: "sale-unlimited-day", subject: "sale-limited-day", budget: 1.2, measures: ["latency", "isolate"], method: `${ALTERNATING}${PROFILED} The pre-render off.` },
  // Budgeted with the pre-render off: each ticket's render is the same work sold alone or in an order (docs/performance.md).
  { pass: "orders", baseline: "order-single", subject: "order-four", budget: 2, budgetOn: [], measures: ["cpu"], where: " (the pre-render on)", method: ALTERNATING },
  { pass: "ordersNoPrerender", baseline: "order-single", subject: "order-four", budget: 2, measures: ["cpu"], where: " (the pre-render off)", method: ALTERNATING },
  { pass: "holds", baseline: "order-direct", subject: "order-hold-confirm", budget: 1.5, budgetOn: ["cpu"], measures: ["cpu", "isolate", "latency"], method: `${ALTERNATING} The pre-render off. The subject's figures are per purchase: its hold and its confirmation together.` },
  { pass: "holds", baseline: "order-direct", subject: "order-hold", budgetOn: [], measures: ["cpu", "isolate", "latency"], method: `${ALTERNATING} The pre-render off. For reference (no budget): the hold pair's first request alone.` },
  { pass: "holds", baseline: "order-direct", subject: "order-read", budgetOn: [], measures: ["cpu", "isolate", "latency"], method: `${ALTERNATING} The pre-render off. For reference (no budget): a request a confirmation cannot cost less than, Basic auth and one D1 round trip reading the order it answers with.` },
  // Budgeted on the Worker's CPU; p50, shown beside it, also holds local D1 reading every day of the month.
  { pass: "octo", baseline: "reseller-hold-confirm", subject: "octo-hold-confirm", budget: 1.15, budgetOn: ["cpu"], measures: ["cpu", "isolate", "latency"], method: `${ALTERNATING}${PROFILED} The pre-render off. One reseller's purchase of one adult ticket through each door, figures per purchase (its hold and its confirmation): Basic auth on /v1.1, its API key on OCTO.` },
  { pass: "calendar", baseline: "availability-day", subject: "availability-calendar", budget: 3, budgetOn: ["cpu"], measures: ["cpu", "latency"], method: ALTERNATING },
];
