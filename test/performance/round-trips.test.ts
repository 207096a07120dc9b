/**
 * D1 round trips per request on the hot paths, with the login remembered
 * (docs/performance.md, "D1 round trips per request"). In production each
 * round trip is a network hop from the Worker to the database: a change that
 * adds one fails here. Adding a route is one line of BUDGETS.
 *
 * `roundTrips` are the request's own: those made before the Worker returned
 * its response, which the client waits for. Work the Worker hands to
 * `waitUntil` runs after that (test/worker.ts starts Queue sends only once the
 * response is returned) and must make none: the webhook outbox's Queue send
 * and the prerendered image's cache writes touch no D1.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { useClock } from "../support/clock";
import { decodeQrPng } from "../support/qr-decode";
import { sha256Hex } from "../../src/platform/crypto";
import { ACCOUNTS, api, type AccountKey, eventBody } from "../support/helpers";
import { MEASURED_CLIENT, roundTripsOf, warmLogin } from "../support/round-trips";
import { ticketCodeOf } from "../support/ticket-codes";
import { createEvent, type PurchaseResponse } from "../tickets/fixtures";
import { subscribe, subscriberUrl } from "../webhooks/helpers";
import { setTestVars } from "../support/worker";

const NOW = "2026-12-01T15:00:00Z";
/** Today in the museum's time zone (America/New_York) at NOW. */
const TODAY = "2026-12-01";
const GENERAL = { ticketType: "general", ticketDate: "2026-12-02", email: "budget@example.com" };
/** Live webhook subscriptions while the event writes are measured (the outbox records one delivery each). */
const SUBSCRIPTIONS = 5;

/** What the measured requests refer to, made before any is measured. */
type Fixture = {
  eventId: string;
  /** A ticket whose image this isolate has (rendered, facts remembered), and its ETag. */
  cachedTicketId: string;
  etag: string;
  /** A ticket whose image was never rendered, one per request that renders. */
  unrendered: string[];
  /** The code (Ed25519) of a ticket for today, never admitted, one per admission. */
  admittable: string[];
  /** The code a ticket for today, never admitted, prints on its image (Ed25519). */
  printedCode: string;
  /** A code whose signature does not verify. */
  forgedCode: string;
  /** Tickets to cancel, one per cancellation; an order to read and one to cancel. */
  cancellable: string[];
  /** An upload of 500 offline scans (a few admit, most name no ticket), and one that reuses an uploaded scanId with another code. */
  offlineUpload: unknown;
  reusedScanId: unknown;
  orderId: string;
  cancellableOrderId: string;
  /** The confirmation code of cachedTicketId; the reference of an order. */
  confirmationCode: string;
  reference: string;
  /** Held orders: one to confirm, one whose hold to extend. */
  confirmableOrderId: string;
  extendableOrderId: string;
  /** A ticket of a held order released: never sold, no image. */
  releasedTicketId: string;
  /** OCTO: the availability id of GENERAL's day; held bookings, one to confirm, one to extend, one to read. */
  octoAvailabilityId: string;
  octoHeld: { confirmable: string; extendable: string; readable: string };
};

type Budget = {
  request: string;
  roundTrips: number;
  status: number;
  /** The account that sends it (default admin; `reseller`: OCTO_KEY's, test-sales). */
  as?: AccountKey | "reseller";
  /** Settings of wrangler.toml's [vars] for this request (test/worker.ts). */
  vars?: Parameters<typeof setTestVars>[0];
  /** Sent just before the measured request, unmeasured: what it needs fresh in the isolate's memory. */
  warm?: (f: Fixture) => Promise<Response>;
  send: (f: Fixture) => Promise<Response>;
};

const get = (path: string, headers: Record<string, string> = {}) => () =>
  api(path, { as: "admin", headers: { ...MEASURED_CLIENT, ...headers } });
const cachedImage = (f: Fixture) => get(`/v1.1/tickets/${f.cachedTicketId}/qr`)();
const send = (method: string, path: string, json: unknown, headers: Record<string, string> = {}, as: AccountKey = "admin") =>
  api(path, { method, as, json, headers: { ...MEASURED_CLIENT, ...headers } });
const post = (path: string, json: unknown, headers: Record<string, string> = {}) => send("POST", path, json, headers);
const eventTicket = (f: Fixture) => ({ ...GENERAL, ticketType: "event", eventId: f.eventId, ticketDate: "2026-12-05" });
const admit = (code: string, headers: Record<string, string> = {}) => send("POST", "/v1.1/admissions", { code }, headers, "gate");
/** An order of `lines` general tickets (a school class: 50). */
const orderOf = (lines: number) => ({ email: GENERAL.email, tickets: Array.from({ length: lines }, () => ({ ticketType: "general", ticketDate: GENERAL.ticketDate })) });

/** A day with every limit: a daily capacity and entry slots. */
const TIMED_DAY = "2026-12-08";

/** The OCTO API key of a reseller (the sales account). */
const OCTO_KEY = "octo-key-of-the-budget-reseller-00001";
const octo = (method: string, path: string, json?: unknown) =>
  api(`/octo${path}`, { method, as: null, ...(json === undefined ? {} : { json }), headers: { ...MEASURED_CLIENT, Authorization: `Bearer ${OCTO_KEY}` } });
const GENERAL_PRODUCT = { productId: "general", optionId: "DEFAULT" };
const octoBooking = (f: Fixture) => octo("POST", "/bookings", { ...GENERAL_PRODUCT, availabilityId: f.octoAvailabilityId, unitItems: [{ unitId: "adult" }, { unitId: "adult" }] });

const BUDGETS: Budget[] = [
  { request: "GET /special-events", roundTrips: 1, status: 200, send: get("/v1.1/special-events") },
  { request: "GET /special-events/{id}", roundTrips: 1, status: 200, send: (f) => get(`/v1.1/special-events/${f.eventId}`)() },
  { request: "GET /museum-hours", roundTrips: 1, status: 200, send: get("/v1.1/museum-hours") },
  { request: "POST /tickets, general", roundTrips: 1, status: 201, send: () => post("/v1.1/tickets", GENERAL) },
  {
    request: "POST /tickets, general, a timed day with a daily capacity",
    roundTrips: 1,
    status: 201,
    send: () => post("/v1.1/tickets", { ...GENERAL, ticketDate: TIMED_DAY, entryTime: "10:30" }),
  },
  { request: "GET /availability", roundTrips: 1, status: 200, send: get(`/v1.1/availability?date=${TIMED_DAY}`) },
  {
    request: "GET /availability/calendar, 62 days",
    roundTrips: 1,
    status: 200,
    send: get(`/v1.1/availability/calendar?startDate=${TODAY}&endDate=2027-01-31`),
  },
  {
    request: "POST /tickets, general, Idempotency-Key",
    roundTrips: 2,
    status: 201,
    send: () => post("/v1.1/tickets", GENERAL, { "Idempotency-Key": crypto.randomUUID() }),
  },
  {
    request: "POST /tickets, replayed Idempotency-Key",
    roundTrips: 1,
    status: 201,
    send: () => post("/v1.1/tickets", GENERAL, { "Idempotency-Key": "budget-replay" }),
  },
  { request: "POST /tickets, event", roundTrips: 2, status: 201, send: (f) => post("/v1.1/tickets", eventTicket(f)) },
  {
    request: "POST /tickets, event, Idempotency-Key",
    roundTrips: 3,
    status: 201,
    send: (f) => post("/v1.1/tickets", eventTicket(f), { "Idempotency-Key": crypto.randomUUID() }),
  },
  // The isolate remembers a ticket's facts for seconds only (ticket-image/lookup.ts): fetched again just before.
  { request: "GET /tickets/{id}/qr, cached", roundTrips: 0, status: 200, warm: cachedImage, send: cachedImage },
  {
    request: "GET /tickets/{id}/qr, If-None-Match",
    roundTrips: 0,
    status: 304,
    warm: cachedImage,
    send: (f) => get(`/v1.1/tickets/${f.cachedTicketId}/qr`, { "If-None-Match": f.etag })(),
  },
  { request: "GET /tickets/{id}/qr, render", roundTrips: 1, status: 200, send: (f) => get(`/v1.1/tickets/${f.unrendered.pop()}/qr`)() },
  // Read again on the primary: a late confirmation may have just been written there.
  { request: "GET /tickets/{id}/qr, hold ended", roundTrips: 2, status: 409, send: (f) => get(`/v1.1/tickets/${f.releasedTicketId}/qr`)() },
  {
    request: "POST /tickets, general, image prerendered after the sale",
    roundTrips: 1,
    status: 201,
    vars: { PRERENDER_TICKET_IMAGES: "true" },
    send: () => post("/v1.1/tickets", GENERAL),
  },
  { request: "POST /admissions, genuine code", roundTrips: 1, status: 201, as: "gate", send: (f) => admit(f.admittable.pop()!) },
  { request: "POST /admissions, the code its image prints", roundTrips: 1, status: 201, as: "gate", send: (f) => admit(f.printedCode) },
  { request: "POST /admissions, forged code", roundTrips: 0, status: 422, as: "gate", send: (f) => admit(f.forgedCode) },
  {
    request: "POST /admissions, Idempotency-Key",
    roundTrips: 2,
    status: 201,
    as: "gate",
    send: (f) => admit(f.admittable.pop()!, { "Idempotency-Key": crypto.randomUUID() }),
  },
  { request: "POST /orders, 50 general lines", roundTrips: 1, status: 201, send: () => post("/v1.1/orders", orderOf(50)) },
  {
    request: "POST /orders, 50 general lines, Idempotency-Key",
    roundTrips: 2,
    status: 201,
    send: () => post("/v1.1/orders", orderOf(50), { "Idempotency-Key": crypto.randomUUID() }),
  },
  {
    request: "POST /orders, 4 lines with an event's",
    roundTrips: 2,
    status: 201,
    send: (f) => post("/v1.1/orders", { ...orderOf(3), tickets: [...orderOf(3).tickets, { ticketType: "event", eventId: f.eventId, ticketDate: "2026-12-05" }] }),
  },
  { request: "GET /orders/{id}", roundTrips: 1, status: 200, send: (f) => get(`/v1.1/orders/${f.orderId}`)() },
  { request: "POST /orders, held", roundTrips: 1, status: 201, send: () => post("/v1.1/orders", { ...orderOf(2), holdMinutes: 15 }) },
  {
    request: "POST /orders/{id}/confirmation",
    roundTrips: 1,
    status: 200,
    send: (f) => post(`/v1.1/orders/${f.confirmableOrderId}/confirmation`, {}),
  },
  { request: "POST /orders/{id}/hold", roundTrips: 1, status: 200, send: (f) => post(`/v1.1/orders/${f.extendableOrderId}/hold`, { holdMinutes: 30 }) },
  {
    request: "POST /octo/availability, a timed day",
    roundTrips: 1,
    status: 200,
    as: "reseller",
    send: () => octo("POST", "/availability", { ...GENERAL_PRODUCT, localDateStart: TIMED_DAY, localDateEnd: TIMED_DAY }),
  },
  {
    request: "POST /octo/availability/calendar, a month",
    roundTrips: 1,
    status: 200,
    as: "reseller",
    send: () => octo("POST", "/availability/calendar", { ...GENERAL_PRODUCT, localDateStart: TODAY, localDateEnd: "2026-12-31" }),
  },
  { request: "POST /octo/bookings", roundTrips: 1, status: 200, as: "reseller", send: octoBooking },
  {
    request: "POST /octo/bookings/{uuid}/confirm",
    roundTrips: 1,
    status: 200,
    as: "reseller",
    send: (f) => octo("POST", `/bookings/${f.octoHeld.confirmable}/confirm`, { contact: { emailAddress: GENERAL.email } }),
  },
  {
    request: "POST /octo/bookings/{uuid}/extend",
    roundTrips: 1,
    status: 200,
    as: "reseller",
    send: (f) => octo("POST", `/bookings/${f.octoHeld.extendable}/extend`, { expirationMinutes: 30 }),
  },
  { request: "GET /octo/bookings/{uuid}", roundTrips: 1, status: 200, as: "reseller", send: (f) => octo("GET", `/bookings/${f.octoHeld.readable}`) },
  {
    request: "POST /tickets/{id}/cancellation",
    roundTrips: 1,
    status: 200,
    send: (f) => post(`/v1.1/tickets/${f.cancellable.pop()}/cancellation`, {}),
  },
  {
    request: "POST /orders/{id}/cancellation",
    roundTrips: 1,
    status: 200,
    send: (f) => post(`/v1.1/orders/${f.cancellableOrderId}/cancellation`, {}),
  },
  {
    request: "GET /tickets/{id}, unknown: read again on the primary",
    roundTrips: 2,
    status: 404,
    send: () => get(`/v1.1/tickets/${crypto.randomUUID()}`)(),
  },
  { request: "GET /tickets/{id}", roundTrips: 1, status: 200, send: (f) => get(`/v1.1/tickets/${f.cachedTicketId}`)() },
  {
    request: "GET /tickets?confirmationCode=",
    roundTrips: 1,
    status: 200,
    send: (f) => get(`/v1.1/tickets?confirmationCode=${f.confirmationCode.toUpperCase()}`)(),
  },
  { request: "GET /orders?reference=", roundTrips: 1, status: 200, send: (f) => get(`/v1.1/orders?reference=${f.reference}`)() },
  { request: "GET /cancellations", roundTrips: 1, status: 200, send: get("/v1.1/cancellations") },
  { request: "GET /gate/revocations", roundTrips: 1, status: 200, as: "gate", send: () => send("GET", "/v1.1/gate/revocations", undefined, {}, "gate") },
  { request: "GET /admissions/summary", roundTrips: 1, status: 200, send: get(`/v1.1/admissions/summary?date=${TODAY}`) },
  {
    request: "POST /admissions/offline, 500 scans",
    roundTrips: 1,
    status: 200,
    as: "gate",
    send: (f) => send("POST", "/v1.1/admissions/offline", f.offlineUpload, {}, "gate"),
  },
  {
    request: "POST /admissions/offline, a scanId reused with another code",
    roundTrips: 2,
    status: 422,
    as: "gate",
    send: (f) => send("POST", "/v1.1/admissions/offline", f.reusedScanId, {}, "gate"),
  },
  { request: "GET /admissions/conflicts", roundTrips: 1, status: 200, send: get(`/v1.1/admissions/conflicts?date=${TODAY}`) },
  {
    request: `POST /special-events, ${SUBSCRIPTIONS} webhook subscriptions`,
    roundTrips: 1,
    status: 201,
    send: () => post("/v1.1/special-events", eventBody({ dates: ["2026-12-10"] })),
  },
  {
    request: `PATCH /special-events/{id}, ${SUBSCRIPTIONS} webhook subscriptions`,
    roundTrips: 1,
    status: 200,
    send: (f) => send("PATCH", `/v1.1/special-events/${f.eventId}`, { location: `Hall ${crypto.randomUUID()}` }),
  },
];

/** The code a ticket's image prints, read as a gate's scanner reads it. */
async function printedCode(ticketId: string): Promise<string> {
  const image = await get(`/v1.1/tickets/${ticketId}/qr`)();
  expect(image.status).toBe(200);
  const code = decodeQrPng(new Uint8Array(await image.arrayBuffer()))?.data;
  if (!code) throw new Error(`the image of ${ticketId} has no readable code`);
  return code;
}

async function sold(json: unknown): Promise<PurchaseResponse> {
  const res = await post("/v1.1/tickets", json);
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

describe("D1 round trips per request, login remembered", () => {
  const fixture = {} as Fixture;

  beforeAll(async () => {
    useClock(NOW);
    fixture.eventId = await createEvent(["2026-12-05"], { capacity: 1000 });
    const timed = { closed: false, timeOpen: "09:00", timeClose: "18:00", capacity: 1000, entrySlotMinutes: 30, slotCapacity: 100 };
    expect((await send("PUT", `/v1.1/museum-hours/exceptions/${TIMED_DAY}`, timed)).status).toBe(201);
    // Released before the cached image is fetched: a cancellation forgets the isolate's remembered tickets.
    const held = await post("/v1.1/orders", { ...orderOf(1), holdMinutes: 15 });
    expect(held.status).toBe(201);
    const released = await post(`/v1.1/orders/${((await held.json()) as { orderId: string }).orderId}/cancellation`, {});
    expect(released.status).toBe(200);
    fixture.releasedTicketId = ((await released.json()) as { tickets: { ticketId: string }[] }).tickets[0]!.ticketId;
    const cached = await sold(GENERAL);
    fixture.cachedTicketId = cached.ticketId;
    fixture.confirmationCode = cached.confirmationCode;
    const image = await get(`/v1.1/tickets/${fixture.cachedTicketId}/qr`)();
    expect(image.status).toBe(200);
    fixture.etag = image.headers.get("ETag")!;
    await image.arrayBuffer();
    fixture.unrendered = [(await sold(GENERAL)).ticketId];
    // The replayed key's first purchase.
    expect((await post("/v1.1/tickets", GENERAL, { "Idempotency-Key": "budget-replay" })).status).toBe(201);
    // A ticket for today (an event's, so the museum's opening hours do not matter) and its code.
    const today = await sold({ ...GENERAL, ticketType: "event", eventId: await createEvent([TODAY]), ticketDate: TODAY });
    const code = await ticketCodeOf(today.ticketId);
    const another = await sold({ ...GENERAL, ticketType: "event", eventId: await createEvent([TODAY]), ticketDate: TODAY });
    fixture.admittable = [await ticketCodeOf(another.ticketId), code];
    fixture.printedCode = await printedCode((await sold({ ...GENERAL, ticketType: "event", eventId: await createEvent([TODAY]), ticketDate: TODAY })).ticketId);
    fixture.cancellable = [(await sold(GENERAL)).ticketId];
    const scannedAt = new Date(Date.parse(NOW) - 60_000).toISOString();
    const scanOf = (code: string) => ({ scanId: crypto.randomUUID(), code, scannedAt });
    const offlineEvent = await createEvent([TODAY]);
    const offlineCodes: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      offlineCodes.push(await printedCode((await sold({ ...GENERAL, ticketType: "event", eventId: offlineEvent, ticketDate: TODAY })).ticketId));
    }
    const scans = Array.from({ length: 500 }, (_, i) => scanOf(offlineCodes[i % 50] ?? `not a code ${i}`));
    fixture.offlineUpload = { sentAt: NOW, scans };
    const uploaded = scanOf(offlineCodes[0]!);
    expect((await send("POST", "/v1.1/admissions/offline", { sentAt: NOW, scans: [uploaded] }, {}, "gate")).status).toBe(200);
    fixture.reusedScanId = { sentAt: NOW, scans: [{ ...uploaded, code: offlineCodes[1] }] };
    const placeOrder = async () => {
      const res = await post("/v1.1/orders", orderOf(2));
      expect(res.status).toBe(201);
      return ((await res.json()) as { orderId: string }).orderId;
    };
    fixture.orderId = await placeOrder();
    fixture.cancellableOrderId = await placeOrder();
    fixture.reference = "budget-order-1";
    expect((await post("/v1.1/orders", { ...orderOf(1), reference: fixture.reference })).status).toBe(201);
    const holdOrder = async () => {
      const res = await post("/v1.1/orders", { ...orderOf(2), holdMinutes: 15 });
      expect(res.status).toBe(201);
      return ((await res.json()) as { orderId: string }).orderId;
    };
    fixture.confirmableOrderId = await holdOrder();
    fixture.extendableOrderId = await holdOrder();
    // One character of the signature changed (not the last: its low bits are padding).
    const at = code.length - 10;
    fixture.forgedCode = `${code.slice(0, at)}${code[at] === "A" ? "B" : "A"}${code.slice(at + 1)}`;
    for (let i = 0; i < SUBSCRIPTIONS; i += 1) await subscribe(subscriberUrl(202));
    await env.DB.prepare("INSERT INTO api_keys (key_id, account_name, key_sha256) VALUES ('budget', ?1, ?2)")
      .bind(ACCOUNTS.sales.name, await sha256Hex(OCTO_KEY))
      .run();
    const day = await octo("POST", "/availability", { ...GENERAL_PRODUCT, localDateStart: GENERAL.ticketDate, localDateEnd: GENERAL.ticketDate });
    fixture.octoAvailabilityId = ((await day.json()) as { id: string }[])[0]!.id;
    const octoHold = async () => {
      const res = await octoBooking(fixture);
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { uuid: string }).uuid;
    };
    fixture.octoHeld = { confirmable: await octoHold(), extendable: await octoHold(), readable: await octoHold() };
  });

  afterEach(() => setTestVars());

  it.each(BUDGETS)("$request: $roundTrips", async ({ send, status, roundTrips, as = "admin", vars, warm }) => {
    useClock(NOW);
    if (as === "reseller") await (await octo("GET", "/supplier")).arrayBuffer();
    else await warmLogin(as);
    setTestVars(vars);
    if (warm) await (await warm(fixture)).arrayBuffer();
    const measured = await roundTripsOf(() => send(fixture));
    expect(measured.res.status).toBe(status);
    expect(measured.roundTrips, "a change of a hot path's D1 round trips: update BUDGETS and docs/performance.md").toBe(roundTrips);
    expect(measured.afterResponse, "D1 round trips of the request's waitUntil work").toBe(0);
  });
});
