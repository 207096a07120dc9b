// Cancellation at the box office and the cancellation trail (contract:
// "Cancellation at the box office"), through the real Worker and D1: who may
// cancel what and until when, refunds, freed places, the gate's answer,
// retries, and the races that must have one winner.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { useClock } from "../support/clock";
import { api, basic, dumpDatabase, expectProblem, expectValidationError, insertAccount, plusDays, todayInZone } from "../support/helpers";
import { ticketCodeOf } from "../support/ticket-codes";
import { buy, cancel, createEvent, order, type OrderResponse, type OrderStatusJson, type PurchaseResponse, type TicketStatusJson } from "../tickets/fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);
let nextDay = 260;
/** A day no other test uses. */
const freshDay = () => plusDays(TODAY, nextDay++);

async function openDay(plan: Record<string, unknown> = {}, date = freshDay()): Promise<string> {
  const res = await api(`/v1.1/museum-hours/exceptions/${date}`, {
    method: "PUT",
    json: { closed: false, timeOpen: "09:00", timeClose: "18:00", ...plan },
  });
  expect(res.status).toBe(201);
  return date;
}

const general = (ticketDate: string, entryTime?: string) => ({
  ticketType: "general",
  ticketDate,
  email: "visitor@example.com",
  phone: "+1 555 0142",
  ...(entryTime === undefined ? {} : { entryTime }),
});

async function sold(json: unknown, as: "admin" | "sales" = "sales"): Promise<PurchaseResponse> {
  const res = await buy(json, { as });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

async function soldOrder(json: unknown): Promise<OrderResponse> {
  const res = await order(json);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as OrderResponse;
}

async function statusOf(ticketId: string): Promise<TicketStatusJson> {
  const res = await api(`/v1.1/tickets/${ticketId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TicketStatusJson;
}

async function taken(date: string): Promise<number> {
  const res = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
  return ((await res.json()) as { general: { taken: number } }).general.taken;
}

function scan(ticket: Pick<PurchaseResponse, "ticketId">, headers: Record<string, string> = {}) {
  return ticketCodeOf(ticket.ticketId).then((code) => api("/v1.1/admissions", { method: "POST", as: "gate", json: { code }, headers }));
}

const OTHER_SHOP = { name: "test-shop-cancel", secret: "shop-cancel-secret-for-tests-0123456789" };

describe("POST /tickets/{ticketId}/cancellation", () => {
  it("cancels a valid ticket: its status and trail, the refund, the place freed, the image and the gate", async () => {
    const day = await openDay({ capacity: 1 });
    const ticket = await sold(general(day));
    const imageBefore = await api(`/v1.1/tickets/${ticket.ticketId}/qr`, { as: "sales" });
    const res = await cancel(`/tickets/${ticket.ticketId}`, { reason: "Visitor ill" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const text = await res.text();
    expect(text).not.toMatch(/visitor@example|555 0142/);
    const body = JSON.parse(text) as TicketStatusJson & { refund: { amount: number } };
    expect(body).toMatchObject({
      ticketId: ticket.ticketId,
      status: "cancelled",
      cancelledAt: expect.stringMatching(/Z$/),
      price: 25,
      currency: "USD",
      refund: { amount: 25 },
      cancellation: { source: "box-office", reason: "Visitor ill", refund: { amount: 25 } },
    });
    expect(await statusOf(ticket.ticketId)).toEqual({ ...body, refund: undefined });

    // The place is free at once: the day's one place sells again.
    expect(await taken(day)).toBe(0);
    await sold(general(day));

    const imageAfter = await api(`/v1.1/tickets/${ticket.ticketId}/qr`, { as: "sales" });
    expect(imageAfter.status).toBe(200);
    expect(imageAfter.headers.get("ETag")).not.toBe(imageBefore.headers.get("ETag"));

    const gate = await expectProblem(await scan(ticket), 409);
    expect(gate.type).toBe("/problems/ticket-cancelled");
  });

  it("refunds the price recorded at the sale, whatever the event's price is now", async () => {
    const day = freshDay();
    const eventId = await createEvent([day], { price: 12.5 });
    const ticket = await sold({ ticketType: "event", eventId, ticketDate: day, email: "visitor@example.com" });
    expect((await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { price: 40 } })).status).toBe(200);
    const body = (await (await cancel(`/tickets/${ticket.ticketId}`)).json()) as { refund: { amount: number }; cancellation: unknown };
    expect(body.refund).toEqual({ amount: 12.5 });
    expect(body.cancellation).toEqual({ source: "box-office", by: "test-sales", refund: { amount: 12.5 } });
  });

  it("lets admin cancel any ticket, a sales account only its own (another's is 404), a gate none", async () => {
    await insertAccount(OTHER_SHOP.name, OTHER_SHOP.secret);
    const day = await openDay();
    const mine = await sold(general(day));
    const byAdmin = await sold(general(day), "admin");
    const other = { Authorization: basic(OTHER_SHOP.name, OTHER_SHOP.secret) };

    const before = await dumpDatabase();
    const notFound = await expectProblem(await api(`/v1.1/tickets/${mine.ticketId}/cancellation`, { method: "POST", as: null, json: {}, headers: other }), 404);
    expect(notFound.detail).toContain(mine.ticketId);
    await expectProblem(await cancel(`/tickets/${byAdmin.ticketId}`), 404);
    await expectProblem(await cancel(`/tickets/${mine.ticketId}`, {}, { as: "gate" }), 403);
    await expectProblem(await cancel(`/tickets/${crypto.randomUUID()}`), 404);
    expect(await dumpDatabase()).toBe(before);

    expect((await cancel(`/tickets/${mine.ticketId}`)).status).toBe(200);
    expect((await cancel(`/tickets/${byAdmin.ticketId}`, {}, { as: "admin" })).status).toBe(200);
  });

  it("refuses a ticket already cancelled or admitted, and changes nothing", async () => {
    const ticket = await sold(general(await openDay()));
    expect((await cancel(`/tickets/${ticket.ticketId}`)).status).toBe(200);
    let before = await dumpDatabase();
    const again = (await expectProblem(await cancel(`/tickets/${ticket.ticketId}`, { reason: "Again" }), 409)) as unknown as Record<string, unknown>;
    expect(again).toMatchObject({
      type: "/problems/ticket-cancelled",
      cancelledAt: expect.any(String),
      cancellation: { source: "box-office", refund: { amount: 25 } },
    });
    expect(await dumpDatabase()).toBe(before);

    const eventId = await createEvent([TODAY]);
    const forToday = await sold({ ticketType: "event", eventId, ticketDate: TODAY, email: "visitor@example.com" });
    expect((await scan(forToday)).status).toBe(201);
    before = await dumpDatabase();
    const admitted = (await expectProblem(await cancel(`/tickets/${forToday.ticketId}`), 409)) as unknown as Record<string, unknown>;
    expect(admitted).toMatchObject({ type: "/problems/already-admitted", admittedAt: expect.any(String) });
    expect(await dumpDatabase()).toBe(before);
  });

  it("cancels until the ticket could no longer be sold: closing time, the slot's end, the event's day", async () => {
    useClock("2031-03-04T15:00:00Z"); // 10:00 in New York (a Tuesday)
    const day = "2031-03-04";
    await openDay({ entrySlotMinutes: 60, slotCapacity: 5 }, day);
    const eventId = await createEvent([day]);
    const timed = await sold(general(day, "10:00"));
    const later = await sold(general(day, "12:00"));
    const event = await sold({ ticketType: "event", eventId, ticketDate: day, email: "visitor@example.com" });

    useClock("2031-03-04T16:00:00Z"); // 11:00: the 10:00 slot has ended
    const before = await dumpDatabase();
    const expired = (await expectProblem(await cancel(`/tickets/${timed.ticketId}`), 409)) as unknown as Record<string, unknown>;
    expect(expired).toMatchObject({ type: "/problems/ticket-expired", ticketDate: day, entryTime: "10:00" });
    expect(await dumpDatabase()).toBe(before);
    expect((await cancel(`/tickets/${later.ticketId}`)).status).toBe(200);

    useClock("2031-03-04T23:30:00Z"); // 18:30: closed for the day, the event's day goes on
    expect((await cancel(`/tickets/${event.ticketId}`)).status).toBe(200);

    const untimed = "2031-03-05";
    useClock("2031-03-05T15:00:00Z");
    await openDay({}, untimed);
    const ticket = await sold(general(untimed));
    const eventTomorrow = await createEvent([untimed]);
    const eventTicket = await sold({ ticketType: "event", eventId: eventTomorrow, ticketDate: untimed, email: "visitor@example.com" });
    useClock("2031-03-05T23:30:00Z"); // 18:30, after closing
    await expectProblem(await cancel(`/tickets/${ticket.ticketId}`), 409);
    useClock("2031-03-06T15:00:00Z"); // the next day
    const past = (await expectProblem(await cancel(`/tickets/${eventTicket.ticketId}`), 409)) as unknown as Record<string, unknown>;
    expect(past).toMatchObject({ type: "/problems/ticket-expired", ticketDate: untimed });
  });

  it("validates the reason and the id", async () => {
    const ticket = await sold(general(await openDay()));
    const path = `/tickets/${ticket.ticketId}`;
    await expectValidationError(await cancel(path, { reason: "x".repeat(201) }), "reason");
    await expectValidationError(await cancel(path, { reason: "   " }), "reason");
    await expectValidationError(await cancel(path, { reason: "two\nlines" }), "reason");
    await expectValidationError(await cancel(path, { reason: 7 }), "reason");
    await expectValidationError(await cancel(path, { refund: 100 }), "refund");
    await expectValidationError(await cancel("/tickets/not-a-uuid"), "path.ticketId");
    await expectProblem(await api(`/v1.1${path}/cancellation`, { method: "POST", as: "sales", body: "{", headers: { "Content-Type": "application/json" } }), 400);
    expect((await statusOf(ticket.ticketId)).status).toBe("valid");
    expect((await cancel(path, { reason: "x".repeat(200) })).status).toBe(200);
  });

  it("with an Idempotency-Key: a retry gets the same 200; the key used for another ticket is 422", async () => {
    const day = await openDay();
    const [first, second] = [await sold(general(day)), await sold(general(day))];
    const key = crypto.randomUUID();
    const res = await cancel(`/tickets/${first.ticketId}`, { reason: "Rain" }, { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    const again = await cancel(`/tickets/${first.ticketId}`, { reason: "Rain" }, { key });
    expect(again.status).toBe(200);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(body);
    await expectProblem(await cancel(`/tickets/${second.ticketId}`, { reason: "Rain" }, { key }), 422);
    await expectProblem(await cancel(`/tickets/${first.ticketId}`, {}, { key }), 422);
    // Without the key, the retry is told the truth.
    await expectProblem(await cancel(`/tickets/${first.ticketId}`, { reason: "Rain" }), 409);
    expect((await statusOf(second.ticketId)).status).toBe("valid");
  });
});

describe("POST /orders/{orderId}/cancellation", () => {
  it("cancels every ticket that can still be cancelled, refunds those, and leaves an admitted one admitted", async () => {
    const eventId = await createEvent([TODAY], { price: 10.1 });
    const day = await openDay();
    const placed = await soldOrder({
      email: "family@example.com",
      tickets: [
        { ticketType: "event", eventId, ticketDate: TODAY },
        { ticketType: "event", eventId, ticketDate: TODAY },
        { ticketType: "general", ticketDate: day },
      ],
    });
    const [admitted, gone] = placed.tickets;
    expect((await scan(admitted!)).status).toBe(201);
    expect((await cancel(`/tickets/${gone!.ticketId}`)).status).toBe(200);

    const res = await cancel(`/orders/${placed.orderId}`, { reason: "Family trip cancelled" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as OrderStatusJson & { refund: { amount: number } };
    expect(body).toMatchObject({ orderId: placed.orderId, totalPrice: 45.2, currency: "USD", refund: { amount: 25 } });
    expect(body.tickets.map((t) => [t.status, t.cancellation?.source, t.cancellation?.reason])).toEqual([
      ["admitted", undefined, undefined],
      ["cancelled", "box-office", undefined],
      ["cancelled", "box-office", "Family trip cancelled"],
    ]);
    const nothing = await expectProblem(await cancel(`/orders/${placed.orderId}`), 409);
    expect(nothing.type).toBe("/problems/nothing-to-cancel");
    expect(((await (await api(`/v1.1/orders/${placed.orderId}`)).json()) as OrderStatusJson).totalPrice).toBe(45.2);
  });

  it("lets a sales account cancel only its own orders; unknown orders are 404", async () => {
    await insertAccount(OTHER_SHOP.name, OTHER_SHOP.secret);
    const placed = await soldOrder({ email: "a@example.com", tickets: [{ ticketType: "general", ticketDate: await openDay() }] });
    const other = { Authorization: basic(OTHER_SHOP.name, OTHER_SHOP.secret) };
    await expectProblem(await api(`/v1.1/orders/${placed.orderId}/cancellation`, { method: "POST", as: null, json: {}, headers: other }), 404);
    await expectProblem(await cancel(`/orders/${crypto.randomUUID()}`), 404);
    await expectProblem(await cancel(`/orders/${placed.orderId}`, {}, { as: "gate" }), 403);
    const key = crypto.randomUUID();
    const first = await cancel(`/orders/${placed.orderId}`, {}, { as: "admin", key });
    expect(first.status).toBe(200);
    const replay = await cancel(`/orders/${placed.orderId}`, {}, { as: "admin", key });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(await first.json());
  });
});

// Each round sends 10 to 20 requests at once: the limit is for a hung test, not a measure of speed.
describe("races", { timeout: 30_000 }, () => {
  it("a cancellation racing admissions of the same ticket: exactly one wins", async () => {
    const eventId = await createEvent([TODAY]);
    for (let round = 0; round < 3; round++) {
      const ticket = await sold({ ticketType: "event", eventId, ticketDate: TODAY, email: "visitor@example.com" });
      const code = await ticketCodeOf(ticket.ticketId);
      const requests = Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0 ? cancel(`/tickets/${ticket.ticketId}`) : api("/v1.1/admissions", { method: "POST", as: "gate", json: { code } }),
      );
      const statuses = (await Promise.all(requests)).map((res) => res.status);
      const wins = statuses.filter((status) => status === 200 || status === 201);
      expect(wins, statuses.join(",")).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(19);
      const status = await statusOf(ticket.ticketId);
      expect(status.status).toBe(wins[0] === 200 ? "cancelled" : "admitted");
    }
  });

  it("a cancellation racing purchases of the last place sells that place at most once", async () => {
    for (let round = 0; round < 3; round++) {
      const day = await openDay({ capacity: 2 });
      const kept = await sold(general(day));
      const given = await sold(general(day));
      const requests = [cancel(`/tickets/${given.ticketId}`), ...Array.from({ length: 10 }, () => buy(general(day)))];
      const [cancelled, ...purchases] = await Promise.all(requests);
      expect(cancelled!.status).toBe(200);
      expect(purchases.filter((res) => res.status === 201).length).toBeLessThanOrEqual(1);
      expect(purchases.every((res) => res.status === 201 || res.status === 409)).toBe(true);
      const valid = await env.DB.prepare("SELECT count(*) AS n FROM tickets WHERE ticket_date = ?1 AND cancelled_at IS NULL")
        .bind(day)
        .first<{ n: number }>();
      expect(valid!.n).toBeLessThanOrEqual(2);
      expect(await taken(day)).toBe(valid!.n);
      expect(kept.ticketId).toBeTruthy();
    }
  });

  it("simultaneous cancellations of one order refund once", async () => {
    const day = await openDay();
    const placed = await soldOrder({ email: "a@example.com", tickets: [0, 1, 2].map(() => ({ ticketType: "general", ticketDate: day })) });
    const answers = await Promise.all(Array.from({ length: 10 }, () => cancel(`/orders/${placed.orderId}`)));
    const ok = answers.filter((res) => res.status === 200);
    expect(ok).toHaveLength(1);
    expect(((await ok[0]!.json()) as { refund: { amount: number } }).refund.amount).toBe(75);
    for (const res of answers.filter((r) => r.status !== 200)) {
      expect(((await expectProblem(res, 409)) as { type: string }).type).toBe("/problems/nothing-to-cancel");
    }
    const refunded = await env.DB.prepare("SELECT count(DISTINCT cancellation_id) AS n, sum(refund_cents) AS cents FROM tickets WHERE order_id = ?1")
      .bind(placed.orderId)
      .first<{ n: number; cents: number }>();
    expect(refunded).toEqual({ n: 1, cents: 7500 });
  });
});
