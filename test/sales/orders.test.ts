// Orders (contract: "Orders: several tickets in one purchase", "Prices and
// money"), through the real Worker and D1: all or nothing, the refused line,
// limits counted across lines, idempotency, and what an order shows.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifyTicketCode } from "../../src/ticket-image";
import { workerCodeKeys } from "../support/ticket-codes";
import { api, dumpDatabase, expectProblem, expectValidationError, insertAccount, basic, plusDays, testDays } from "../support/helpers";
import { decodeQrPng } from "../support/qr-decode";
import { createEvent, order, type OrderResponse, type OrderStatusJson, type TicketStatusJson } from "../tickets/fixtures";

const { today: TODAY, freshDay, openDay } = testDays(200);

const BUYER = { email: "family@example.com", phone: "+1 555 0199" };
const general = (ticketDate: string, entryTime?: string) => ({
  ticketType: "general",
  ticketDate,
  ...(entryTime === undefined ? {} : { entryTime }),
});
const eventLine = (eventId: string, ticketDate: string) => ({ ticketType: "event", eventId, ticketDate });

async function sold(json: unknown, options: Parameters<typeof order>[1] = {}): Promise<{ res: Response; body: OrderResponse }> {
  const res = await order(json, options);
  expect(res.status, await res.clone().text()).toBe(201);
  return { res, body: (await res.json()) as OrderResponse };
}

async function ticketCount(email: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM tickets WHERE buyer_email = ?1").bind(email).first<{ n: number }>();
  return row!.n;
}

async function generalTaken(date: string): Promise<unknown> {
  const res = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
  expect(res.status).toBe(200);
  return ((await res.json()) as { general: unknown }).general;
}

describe("POST /orders", () => {
  it("sells every line in one go: 201 with the tickets in line order, prices, total and currency", async () => {
    const day = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const eventId = await createEvent([day], { price: 0.1 });
    const { res, body } = await sold({
      ...BUYER,
      tickets: [general(day, "10:00"), eventLine(eventId, day), general(day, "11:00"), eventLine(eventId, day), eventLine(eventId, day)],
    });
    expect(res.headers.get("Location")).toBe(`/v1.1/orders/${body.orderId}`);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    // 25 + 0.1 + 25 + 0.1 + 0.1, summed in cents: exactly 50.3 (a float sum gives 50.300000000000004).
    expect(body).toMatchObject({ totalPrice: 50.3, currency: "USD" });
    expect(body.tickets.map((t) => [t.ticketType, t.entryTime ?? t.eventId, t.price])).toEqual([
      ["general", "10:00", 25],
      ["event", eventId, 0.1],
      ["general", "11:00", 25],
      ["event", eventId, 0.1],
      ["event", eventId, 0.1],
    ]);
    expect(new Set(body.tickets.map((t) => t.ticketId)).size).toBe(5);
    for (const ticket of body.tickets) {
      expect(ticket.confirmationCode).toMatch(new RegExp(`^ticket-${ticket.ticketType}-[a-z0-9]{6}-[a-z0-9]{5}$`));
      expect(ticket.ticketDate).toBe(day);
    }
    expect(body.tickets[1]!.eventName).toMatch(/^Event /);
    expect(JSON.stringify(body)).not.toMatch(/family@example|555 0199/);
  });

  it("gives every ticket its own status and image, like a ticket bought alone", async () => {
    const day = await openDay();
    const { body } = await sold({ ...BUYER, tickets: [general(day), general(day)] });
    const keys = workerCodeKeys();
    for (const ticket of body.tickets) {
      const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`, { as: "sales" })).json()) as TicketStatusJson;
      expect(status).toMatchObject({ ticketId: ticket.ticketId, orderId: body.orderId, status: "valid", price: 25, currency: "USD" });
      const image = await api(`/v1.1/tickets/${ticket.ticketId}/qr`, { as: "sales" });
      expect(image.status).toBe(200);
      const claims = await verifyTicketCode(decodeQrPng(new Uint8Array(await image.arrayBuffer()))!.data, keys);
      expect(claims).toMatchObject({ tid: ticket.ticketId, typ: "general", cat: "adult" });
    }
  });

  it("GET /orders/{orderId}: the order as sold and each ticket's status, never the buyer's contact", async () => {
    const day = await openDay();
    const { body } = await sold({ ...BUYER, tickets: [general(day), general(day)] });
    const res = await api(`/v1.1/orders/${body.orderId}`, { as: "sales" });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toMatch(/family@example|555 0199/);
    const status = JSON.parse(text) as OrderStatusJson;
    expect(status).toMatchObject({ orderId: body.orderId, totalPrice: 50, currency: "USD", createdAt: expect.stringMatching(/Z$/) });
    expect(status.tickets.map((t) => [t.ticketId, t.status, t.orderId])).toEqual(body.tickets.map((t) => [t.ticketId, "valid", body.orderId]));

    await expectProblem(await api(`/v1.1/orders/${crypto.randomUUID()}`, { as: "sales" }), 404);
    await expectValidationError(await api("/v1.1/orders/not-a-uuid", { as: "sales" }), "path.orderId");
    await expectProblem(await api(`/v1.1/orders/${body.orderId}`, { as: "gate" }), 403);
  });

  it("keeps the prices recorded at the sale when an event's price changes", async () => {
    const day = freshDay();
    const eventId = await createEvent([day], { price: 12.5 });
    const { body } = await sold({ ...BUYER, tickets: [eventLine(eventId, day), eventLine(eventId, day)] });
    const patched = await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { price: 99 } });
    expect(patched.status).toBe(200);
    const status = (await (await api(`/v1.1/orders/${body.orderId}`)).json()) as OrderStatusJson;
    expect(status.totalPrice).toBe(25);
    expect(status.tickets.map((t) => t.price)).toEqual([12.5, 12.5]);
    // A new sale takes the new price.
    const later = await sold({ ...BUYER, tickets: [eventLine(eventId, day)] });
    expect(later.body.totalPrice).toBe(99);
  });

  it("sells nothing when its last line is refused: tickets and availability as before", async () => {
    const day = await openDay({ entrySlotMinutes: 60, slotCapacity: 4 });
    const email = `${crypto.randomUUID()}@example.com`;
    const before = await dumpDatabase();
    const availability = await generalTaken(day);
    const res = await order({ email, tickets: [0, 1, 2, 3, 4].map(() => general(day, "10:00")) });
    const problem = (await expectProblem(res, 409)) as unknown as Record<string, unknown>;
    expect(problem).toMatchObject({ type: "/problems/sold-out", line: 4, available: 4 });
    // No slot has room for all five.
    expect(problem.availableEntryTimes).toEqual([]);
    expect(await ticketCount(email)).toBe(0);
    expect(await generalTaken(day)).toEqual(availability);
    expect(await dumpDatabase()).toBe(before);

    // The same 4 fit.
    await sold({ email, tickets: [0, 1, 2, 3].map(() => general(day, "10:00")) });
    expect(await ticketCount(email)).toBe(4);
  });

  it("counts lines for the same day, slot and event together against their limits", async () => {
    const day = await openDay({ capacity: 3 });
    const eventId = await createEvent([day], { capacity: 2 });
    const dayFull = await expectProblem(await order({ ...BUYER, tickets: [general(day), eventLine(eventId, day), general(day), general(day), general(day)] }), 409);
    expect(dayFull).toMatchObject({ type: "/problems/sold-out", line: 4, available: 3 });
    const eventFull = await expectProblem(await order({ ...BUYER, tickets: [eventLine(eventId, day), general(day), eventLine(eventId, day), eventLine(eventId, day)] }), 409);
    expect(eventFull).toMatchObject({ type: "/problems/sold-out", line: 3, available: 2 });
    // A line for another day counts on its own.
    const other = await openDay({ capacity: 1 });
    await sold({ ...BUYER, tickets: [general(day), general(other), general(day), general(day)] });
    expect(await generalTaken(day)).toMatchObject({ taken: 3, available: 0 });
  });

  it("names the refused line: every 400 first, then the first 404, then the first 409", async () => {
    const full = await openDay({ capacity: 1 });
    await sold({ ...BUYER, tickets: [general(full)] });
    const open = await openDay();
    const missing = crypto.randomUUID();
    const eventId = await createEvent([open]);

    // 409 (line 0), 404 (line 1), 400 (lines 2 and 4: a past date, a date the event does not have).
    const mixed = [general(full), eventLine(missing, open), general(plusDays(TODAY, -1)), general(open), eventLine(eventId, plusDays(open, 1))];
    const invalid = await expectValidationError(await order({ ...BUYER, tickets: mixed }), "tickets[2].ticketDate", "tickets[4].ticketDate");
    expect(invalid).toMatchObject({ line: 2 });

    const notFound = await expectProblem(await order({ ...BUYER, tickets: [general(full), general(open), eventLine(missing, open)] }), 404);
    expect(notFound).toMatchObject({ line: 2 });
    expect(notFound.detail).toContain(missing);

    const soldOut = await expectProblem(await order({ ...BUYER, tickets: [general(open), general(full)] }), 409);
    expect(soldOut).toMatchObject({ type: "/problems/sold-out", line: 1, available: 0 });

    // A closed day is a 400 found by the write itself, still before any 409.
    const closed = freshDay();
    expect((await api(`/v1.1/museum-hours/exceptions/${closed}`, { method: "PUT", json: { closed: true } })).status).toBe(201);
    const closedLine = await expectValidationError(await order({ ...BUYER, tickets: [general(full), general(closed)] }), "tickets[1].ticketDate");
    expect(closedLine).toMatchObject({ line: 1 });
  });

  it("refuses a bad body with every offending field and the lowest line", async () => {
    const day = freshDay();
    const line = general(day);
    const cases: [unknown, string[], number?][] = [
      [{ ...BUYER, tickets: [] }, ["tickets"]],
      [{ ...BUYER, tickets: Array.from({ length: 51 }, () => line) }, ["tickets"]],
      [{ ...BUYER, tickets: line }, ["tickets"]],
      [{ phone: BUYER.phone, tickets: [line] }, ["email"]],
      [{ ...BUYER, email: "not-an-address", tickets: [line] }, ["email"]],
      [{ ...BUYER, tickets: [line], extra: 1 }, ["extra"]],
      [{ ...BUYER, tickets: [line, { ...line, email: "a@example.com" }] }, ["tickets[1].email"], 1],
      [{ ...BUYER, tickets: [line, line, { ...line, entryTime: "25:00" }, { ticketType: "event", ticketDate: day }] }, ["tickets[2].entryTime", "tickets[3].eventId"], 2],
      [{ ...BUYER, tickets: [{ ...line, eventId: crypto.randomUUID() }] }, ["tickets[0].eventId"], 0],
      [{ ...BUYER, tickets: [{ ticketType: "concert", ticketDate: "2026-02-30" }] }, ["tickets[0].ticketType", "tickets[0].ticketDate"], 0],
      [{ ...BUYER, tickets: [null] }, ["tickets[0]"], 0],
    ];
    for (const [json, paths, line] of cases) {
      const problem = (await expectValidationError(await order(json), ...paths)) as unknown as Record<string, unknown>;
      expect(problem.line, JSON.stringify(json).slice(0, 120)).toBe(line);
    }
  });

  it("answers 403 to a gate, 401 without credentials, and sells 50 lines (a school class)", async () => {
    const day = await openDay();
    await expectProblem(await order({ ...BUYER, tickets: [general(day)] }, { as: "gate" }), 403);
    await expectProblem(await api("/v1.1/orders", { method: "POST", as: null, json: { ...BUYER, tickets: [general(day)] } }), 401);
    const { body } = await sold({ ...BUYER, tickets: Array.from({ length: 50 }, () => general(day)) }, { as: "admin" });
    expect(body.tickets).toHaveLength(50);
    expect(body.totalPrice).toBe(1250);
    expect(await generalTaken(day)).toMatchObject({ taken: 50 });
  });
});

describe("POST /orders with an Idempotency-Key", () => {
  it("answers a retry with the same 201 and sells nothing more", async () => {
    const day = await openDay();
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    const json = { email, tickets: [general(day), general(day)] };
    const first = await sold(json, { key });
    const again = await order({ tickets: json.tickets, email }, { key });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(first.body);
    expect(await ticketCount(email)).toBe(2);

    // Another body under the same key: 422. The same key for a single ticket is another operation's.
    await expectProblem(await order({ email, tickets: [general(day)] }, { key }), 422);
    const single = await api("/v1.1/tickets", { method: "POST", as: "sales", json: { ...general(day), email }, headers: { "Idempotency-Key": key } });
    expect(single.status).toBe(201);
    expect(await ticketCount(email)).toBe(3);
  });

  it("keeps no key for a refused order: the same request is judged again", async () => {
    const day = await openDay({ capacity: 1 });
    const blocker = await sold({ ...BUYER, tickets: [general(day)] });
    const key = crypto.randomUUID();
    const json = { email: `${key}@example.com`, tickets: [general(day)] };
    await expectProblem(await order(json, { key }), 409);
    expect((await api(`/v1.1/tickets/${blocker.body.tickets[0]!.ticketId}/cancellation`, { method: "POST", as: "sales", json: {} })).status).toBe(200);
    const retried = await order(json, { key });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("keeps keys apart per account: another account's key buys its own order", async () => {
    const day = await openDay();
    await insertAccount("test-shop-orders", "shop-orders-secret-for-tests-0123456789");
    const key = crypto.randomUUID();
    const json = { email: `${key}@example.com`, tickets: [general(day)] };
    const mine = await sold(json, { key });
    const theirs = await api("/v1.1/orders", {
      method: "POST",
      as: null,
      json,
      headers: { Authorization: basic("test-shop-orders", "shop-orders-secret-for-tests-0123456789"), "Idempotency-Key": key },
    });
    expect(theirs.status).toBe(201);
    expect(((await theirs.json()) as OrderResponse).orderId).not.toBe(mine.body.orderId);
  });
});
