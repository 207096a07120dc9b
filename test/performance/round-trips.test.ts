/**
 * D1 round trips per request on the hot paths, with the login remembered
 * (docs/performance.md, "D1 round trips per request"). In production each
 * round trip is a network hop from the Worker to the database: a change that
 * adds one fails here. Adding a route is one line of BUDGETS.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useClock } from "../clock";
import { api } from "../helpers";
import { MEASURED_CLIENT, roundTripsOf, warmLogin } from "../round-trips";
import { createEvent, type PurchaseResponse } from "../tickets/fixtures";

const NOW = "2026-12-01T15:00:00Z";
const GENERAL = { ticketType: "general", ticketDate: "2026-12-02", email: "budget@example.com" };

/** What the measured requests refer to, made before any is measured. */
type Fixture = {
  eventId: string;
  /** A ticket whose image this isolate has (rendered, facts remembered), and its ETag. */
  cachedTicketId: string;
  etag: string;
  /** A ticket whose image was never rendered, one per request that renders. */
  unrendered: string[];
};

type Budget = { request: string; roundTrips: number; status: number; send: (f: Fixture) => Promise<Response> };

const get = (path: string, headers: Record<string, string> = {}) => () =>
  api(path, { as: "admin", headers: { ...MEASURED_CLIENT, ...headers } });
const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
  api(path, { method: "POST", as: "admin", json, headers: { ...MEASURED_CLIENT, ...headers } });
const eventTicket = (f: Fixture) => ({ ...GENERAL, ticketType: "event", eventId: f.eventId, ticketDate: "2026-12-05" });

const BUDGETS: Budget[] = [
  { request: "GET /special-events", roundTrips: 1, status: 200, send: get("/v1.1/special-events") },
  { request: "GET /special-events/{id}", roundTrips: 1, status: 200, send: (f) => get(`/v1.1/special-events/${f.eventId}`)() },
  { request: "GET /museum-hours", roundTrips: 1, status: 200, send: get("/v1.1/museum-hours") },
  { request: "POST /tickets, general", roundTrips: 1, status: 201, send: () => post("/v1.1/tickets", GENERAL) },
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
  { request: "GET /tickets/{id}/qr, cached", roundTrips: 0, status: 200, send: (f) => get(`/v1.1/tickets/${f.cachedTicketId}/qr`)() },
  {
    request: "GET /tickets/{id}/qr, If-None-Match",
    roundTrips: 0,
    status: 304,
    send: (f) => get(`/v1.1/tickets/${f.cachedTicketId}/qr`, { "If-None-Match": f.etag })(),
  },
  { request: "GET /tickets/{id}/qr, render", roundTrips: 1, status: 200, send: (f) => get(`/v1.1/tickets/${f.unrendered.pop()}/qr`)() },
];

async function sold(json: unknown): Promise<string> {
  const res = await post("/v1.1/tickets", json);
  expect(res.status).toBe(201);
  return ((await res.json()) as PurchaseResponse).ticketId;
}

describe("D1 round trips per request, login remembered", () => {
  const fixture = {} as Fixture;

  beforeAll(async () => {
    useClock(NOW);
    fixture.eventId = await createEvent(["2026-12-05"]);
    fixture.cachedTicketId = await sold(GENERAL);
    const image = await get(`/v1.1/tickets/${fixture.cachedTicketId}/qr`)();
    expect(image.status).toBe(200);
    fixture.etag = image.headers.get("ETag")!;
    await image.arrayBuffer();
    fixture.unrendered = [await sold(GENERAL)];
    // The replayed key's first purchase.
    expect((await post("/v1.1/tickets", GENERAL, { "Idempotency-Key": "budget-replay" })).status).toBe(201);
  });

  it.each(BUDGETS)("$request: $roundTrips", async ({ send, status, roundTrips }) => {
    useClock(NOW);
    await warmLogin("admin");
    const measured = await roundTripsOf(() => send(fixture));
    expect(measured.res.status).toBe(status);
    expect(measured.roundTrips, "a change of a hot path's D1 round trips: update BUDGETS and docs/performance.md").toBe(roundTrips);
  });
});
