// Whose tickets and orders an account sees (docs/hardening.md, "Roles: who
// may call what, and whose tickets"): a sales account only what it sold,
// and another account's ticket or order answers exactly as an unknown id on
// every route; box-office and admin see all of them.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { type AccountKey, api, dumpDatabase, plusDays, todayInZone } from "../support/helpers";
import { MEASURED_CLIENT, roundTripsOf, warmLogin } from "../support/round-trips";
import { setTestVars, settleWaitUntil } from "../support/worker";
import { buy, cancel, createEvent, order, type OrderResponse, type PurchaseResponse } from "../tickets/fixtures";

const DAY = plusDays(todayInZone(env.MUSEUM_TIMEZONE), 30);
/** The web shop sells; the kiosk is the second sales account, which must not see the web shop's sales. */
const SHOP: AccountKey = "sales";
const KIOSK: AccountKey = "kiosk";

let eventId: string | undefined;
async function sale(as: AccountKey = SHOP): Promise<{ ticketId: string; orderId: string }> {
  eventId ??= await createEvent([DAY]);
  const line = { ticketType: "event", eventId, ticketDate: DAY };
  const ticket = await buy({ ...line, email: "visitor@example.com" }, { as });
  const placed = await order({ email: "visitor@example.com", tickets: [line, line] }, { as });
  expect([ticket.status, placed.status]).toEqual([201, 201]);
  await settleWaitUntil();
  return {
    ticketId: ((await ticket.json()) as PurchaseResponse).ticketId,
    orderId: ((await placed.json()) as OrderResponse).orderId,
  };
}

type Route = { name: string; of: "ticketId" | "orderId"; send: (id: string, as: AccountKey, headers?: Record<string, string>) => Promise<Response> };

const ROUTES: Route[] = [
  { name: "GET /tickets/{ticketId}", of: "ticketId", send: (id, as, headers) => api(`/v1.1/tickets/${id}`, { as, headers: { ...MEASURED_CLIENT, ...headers } }) },
  { name: "GET /tickets/{ticketId}/qr", of: "ticketId", send: (id, as, headers) => api(`/v1.1/tickets/${id}/qr`, { as, headers: { ...MEASURED_CLIENT, ...headers } }) },
  { name: "POST /tickets/{ticketId}/cancellation", of: "ticketId", send: (id, as, headers) => cancel(`/tickets/${id}`, {}, { as, headers: { ...MEASURED_CLIENT, ...headers } }) },
  { name: "GET /orders/{orderId}", of: "orderId", send: (id, as, headers) => api(`/v1.1/orders/${id}`, { as, headers: { ...MEASURED_CLIENT, ...headers } }) },
  { name: "POST /orders/{orderId}/cancellation", of: "orderId", send: (id, as, headers) => cancel(`/orders/${id}`, {}, { as, headers: { ...MEASURED_CLIENT, ...headers } }) },
];

/** What a client can compare between two answers: status, headers but the request's own, body with the asked id replaced. */
async function observable(res: Response, id: string) {
  const headers = [...res.headers].filter(([name]) => !["x-request-id", "x-d1-bookmark", "date"].includes(name));
  const body = JSON.parse((await res.text()).replaceAll(id, "<id>")) as Record<string, unknown>;
  delete body.requestId;
  return { status: res.status, headers, body };
}

afterEach(() => setTestVars());

describe("a second sales account", () => {
  it.each(ROUTES)("$name: the web shop's ticket or order is the 404 of an unknown id (same answer, same round trips), and nothing changes", async (route) => {
    const sold = await sale();
    await warmLogin(KIOSK);
    const unknownId = crypto.randomUUID();
    const unknown = await roundTripsOf(() => route.send(unknownId, KIOSK));
    const before = await dumpDatabase();
    const other = await roundTripsOf(() => route.send(sold[route.of], KIOSK));
    expect(await dumpDatabase()).toBe(before);

    expect(other.res.status).toBe(404);
    expect(await observable(other.res, sold[route.of])).toEqual(await observable(unknown.res, unknownId));
    expect(other.roundTrips).toBe(unknown.roundTrips);
    expect(other.afterResponse).toBe(unknown.afterResponse);
  });

  it.each(ROUTES)("$name: the web shop, box-office and admin are answered; the kiosk sees only its own", async (route) => {
    const kiosksOwn = await sale(KIOSK);
    expect((await route.send(kiosksOwn[route.of], KIOSK)).status).toBe(200);
    expect((await route.send(kiosksOwn[route.of], SHOP)).status).toBe(404);
    for (const as of [SHOP, "boxOffice", "admin"] as const) {
      const shops = await sale();
      const res = await route.send(shops[route.of], as);
      expect(res.status, `${route.name} as ${as}`).toBe(200);
    }
  });
});

describe("the same ticket as each account sees it", () => {
  it("box-office and admin read and fetch exactly what the web shop does", async () => {
    const { ticketId, orderId } = await sale();
    const seen = async (as: AccountKey) => ({
      status: await (await api(`/v1.1/tickets/${ticketId}`, { as })).json(),
      image: new Uint8Array(await (await api(`/v1.1/tickets/${ticketId}/qr`, { as })).arrayBuffer()),
      order: await (await api(`/v1.1/orders/${orderId}`, { as })).json(),
    });
    const shop = await seen(SHOP);
    expect(shop.image.length).toBeGreaterThan(1_000);
    expect(await seen("boxOffice")).toEqual(shop);
    expect(await seen("admin")).toEqual(shop);
  });

  it("a ticket the web shop sold is given back at the desk", async () => {
    const { ticketId, orderId } = await sale();
    const ticket = await cancel(`/tickets/${ticketId}`, { reason: "Bought online, returned at the desk" }, { as: "boxOffice" });
    expect(ticket.status).toBe(200);
    expect(await ticket.json()).toMatchObject({ ticketId, status: "cancelled", cancellation: { source: "box-office", refund: { amount: 12.5 } } });
    const placed = await cancel(`/orders/${orderId}`, {}, { as: "boxOffice" });
    expect(placed.status).toBe(200);
    expect(await placed.json()).toMatchObject({ orderId, refund: { amount: 25 } });
    const status = (await (await api(`/v1.1/tickets/${ticketId}`, { as: SHOP })).json()) as { status: string };
    expect(status.status).toBe("cancelled");
  });
});

describe("the isolate's memory of a ticket", () => {
  /** The kiosk's fetch of an image: its answer and round trips, against an unknown id's. */
  async function kioskFetch(ticketId: string, headers: Record<string, string> = {}) {
    await warmLogin(KIOSK);
    const unknownId = crypto.randomUUID();
    const unknown = await roundTripsOf(() => api(`/v1.1/tickets/${unknownId}/qr`, { as: KIOSK, headers: { ...MEASURED_CLIENT, ...headers } }));
    const other = await roundTripsOf(() => api(`/v1.1/tickets/${ticketId}/qr`, { as: KIOSK, headers: { ...MEASURED_CLIENT, ...headers } }));
    expect(other.res.status).toBe(404);
    expect(await observable(other.res, ticketId)).toEqual(await observable(unknown.res, unknownId));
    expect(other.roundTrips).toBe(unknown.roundTrips);
    expect(other.roundTrips).toBe(2); // the session's read and the primary's, as for any miss
  }

  /** The web shop's fetch of an image, which memory answers: no D1. */
  async function shopFetchFromMemory(ticketId: string, as: AccountKey = SHOP) {
    await warmLogin(as);
    const { res, roundTrips } = await roundTripsOf(() => api(`/v1.1/tickets/${ticketId}/qr`, { as, headers: MEASURED_CLIENT }));
    expect(res.status).toBe(200);
    expect(roundTrips).toBe(0);
    return res.headers.get("ETag")!;
  }

  it("a ticket the web shop just fetched is not the kiosk's, not even by its ETag; box-office is answered from memory", async () => {
    const { ticketId } = await sale();
    expect((await api(`/v1.1/tickets/${ticketId}/qr`, { as: SHOP })).status).toBe(200);
    const etag = await shopFetchFromMemory(ticketId);
    await kioskFetch(ticketId);
    await kioskFetch(ticketId, { "If-None-Match": etag });
    expect(await shopFetchFromMemory(ticketId, "boxOffice")).toBe(etag);
    expect(await shopFetchFromMemory(ticketId)).toBe(etag);
  });

  it("a ticket remembered at its sale (PRERENDER_TICKET_IMAGES) is not the kiosk's", async () => {
    setTestVars({ PRERENDER_TICKET_IMAGES: "true" });
    const { ticketId } = await sale();
    await kioskFetch(ticketId);
    await shopFetchFromMemory(ticketId);
  });
});
