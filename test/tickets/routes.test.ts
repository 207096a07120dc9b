import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, expectValidationError } from "../support/helpers";
import { useClock } from "../support/clock";
import { buy, createEvent, type PurchaseResponse } from "./fixtures";

// Tuesday 1 December 2026, 10:00 in New York.
const NOW = "2026-12-01T15:00:00Z";
const WEDNESDAY = "2026-12-02";
const SATURDAY = "2026-12-05";
const CODE = /^ticket-(general|event)-[a-z0-9]{6}-[a-z0-9]{5}$/;

type TicketRow = {
  ticket_type: string;
  ticket_date: string;
  event_id: string | null;
  buyer_email: string;
  buyer_phone: string | null;
  price_cents: number;
  sold_by: string;
  cancelled_at: string | null;
};

function ticketRow(ticketId: string) {
  return env.DB.prepare("SELECT * FROM tickets WHERE ticket_id = ?1").bind(ticketId).first<TicketRow>();
}

beforeEach(() => useClock(NOW));

describe("POST /tickets: general entry", () => {
  it("sells a ticket for an open day and records buyer, seller and price", async () => {
    const res = await buy({ ticketType: "general", ticketDate: WEDNESDAY, email: "todd@example.com", phone: "+1 (234) 567-8910" });
    expect(res.status).toBe(201);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = (await res.json()) as PurchaseResponse;
    expect(body).toEqual({
      message: "Museum general entry ticket purchased",
      ticketId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ticketType: "general",
      ticketDate: WEDNESDAY,
      confirmationCode: expect.stringMatching(CODE),
    });
    expect(body.confirmationCode.startsWith("ticket-general-")).toBe(true);
    expect(res.headers.get("Location")).toBe(`/v1.1/tickets/${body.ticketId}/qr`);
    expect(await ticketRow(body.ticketId)).toMatchObject({
      ticket_type: "general",
      ticket_date: WEDNESDAY,
      event_id: null,
      buyer_email: "todd@example.com",
      buyer_phone: "+1 (234) 567-8910",
      price_cents: 2500,
      sold_by: "test-sales",
      cancelled_at: null,
    });
  });

  it("sells for today in the museum's time zone while UTC is already tomorrow", async () => {
    useClock("2026-12-02T03:00:00Z"); // 22:00 on Tuesday 1 Dec in New York
    // Open late that day: today's general tickets are sold until closing time.
    const lateHours = { closed: false, timeOpen: "09:00", timeClose: "23:00" };
    expect((await api("/v1.1/museum-hours/exceptions/2026-12-01", { method: "PUT", json: lateHours })).status).toBe(201);
    expect((await buy({ ticketType: "general", ticketDate: "2026-12-01", email: "a@example.com" })).status).toBe(201);
    await expectValidationError(
      await buy({ ticketType: "general", ticketDate: "2026-11-30", email: "a@example.com" }),
      "ticketDate",
    );
  });

  it("refuses the museum's yesterday even while UTC has not reached its today", async () => {
    useClock("2026-12-03T04:59:00Z"); // 23:59 on Wednesday 2 Dec in New York
    await expectValidationError(
      await buy({ ticketType: "general", ticketDate: "2026-12-01", email: "a@example.com" }),
      "ticketDate",
    );
    useClock("2026-12-03T05:01:00Z"); // 00:01 on Thursday 3 Dec in New York
    await expectValidationError(
      await buy({ ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com" }),
      "ticketDate",
    );
  });

  it("follows hours exceptions", async () => {
    await api("/v1.1/museum-hours/exceptions/2026-12-09", { method: "PUT", json: { closed: true } });
    await api("/v1.1/museum-hours/exceptions/2026-12-12", {
      method: "PUT",
      json: { closed: false, timeOpen: "10:00", timeClose: "14:00" },
    });
    await expectValidationError(await buy({ ticketType: "general", ticketDate: "2026-12-09", email: "a@example.com" }), "ticketDate");
    expect((await buy({ ticketType: "general", ticketDate: "2026-12-12", email: "a@example.com" })).status).toBe(201);
  });

  it.each([
    ["a Saturday", { ticketType: "general", ticketDate: SATURDAY, email: "a@example.com" }, ["ticketDate"]],
    ["a Sunday", { ticketType: "general", ticketDate: "2026-12-06", email: "a@example.com" }, ["ticketDate"]],
    ["a past date", { ticketType: "general", ticketDate: "2026-11-30", email: "a@example.com" }, ["ticketDate"]],
    ["a date past the published year", { ticketType: "general", ticketDate: "2027-12-03", email: "a@example.com" }, ["ticketDate"]],
    ["2027-02-30", { ticketType: "general", ticketDate: "2027-02-30", email: "a@example.com" }, ["ticketDate"]],
    ["an eventId", { ticketType: "general", eventId: crypto.randomUUID(), ticketDate: WEDNESDAY, email: "a@example.com" }, ["eventId"]],
    ["no @ in the e-mail", { ticketType: "general", ticketDate: WEDNESDAY, email: "todd.example.com" }, ["email"]],
    ["a 255-character e-mail", { ticketType: "general", ticketDate: WEDNESDAY, email: `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com` }, ["email"]],
    ["spaces in the e-mail", { ticketType: "general", ticketDate: WEDNESDAY, email: "todd smith@example.com" }, ["email"]],
    ["an empty e-mail", { ticketType: "general", ticketDate: WEDNESDAY, email: "" }, ["email"]],
    ["letters in the phone", { ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com", phone: "call me" }, ["phone"]],
    ["a 4-character phone", { ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com", phone: "1234" }, ["phone"]],
    ["a 33-character phone", { ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com", phone: "1".repeat(33) }, ["phone"]],
    ["a number for a phone", { ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com", phone: 5551234 }, ["phone"]],
    ["an unknown field", { ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com", seat: "A1" }, ["seat"]],
    ["an unknown ticket type", { ticketType: "vip", ticketDate: WEDNESDAY, email: "a@example.com" }, ["ticketType"]],
    ["no fields", {}, ["ticketType", "ticketDate", "email"]],
    ["null fields", { ticketType: "general", ticketDate: null, email: "a@example.com" }, ["ticketDate"]],
  ])("refuses %s and writes nothing", async (_, body, paths) => {
    const before = await dumpDatabase();
    await expectValidationError(await buy(body), ...paths);
    expect(await dumpDatabase()).toBe(before);
  });

  it("counts e-mail lengths right in these tests", () => {
    expect(`${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`).toHaveLength(255);
  });

  it("accepts a 254-character e-mail", async () => {
    const email = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`;
    expect(email).toHaveLength(254);
    expect((await buy({ ticketType: "general", ticketDate: WEDNESDAY, email })).status).toBe(201);
  });

  it("refuses a body that is not JSON", async () => {
    await expectProblem(
      await api("/v1.1/tickets", { method: "POST", body: "ticketType=general", headers: { "Content-Type": "text/plain" } }),
      415,
    );
    await expectProblem(
      await api("/v1.1/tickets", { method: "POST", body: "{", headers: { "Content-Type": "application/json" } }),
      400,
    );
  });

  it("needs credentials", async () => {
    const res = await api("/v1.1/tickets", { method: "POST", as: null, json: { ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com" } });
    await expectProblem(res, 401);
  });
});

describe("POST /tickets: special events", () => {
  it("sells a ticket for one of the event's dates, even on a closed day", async () => {
    const eventId = await createEvent([SATURDAY, "2026-12-12"], { name: "Sasquatch Ballet", price: 40 });
    const res = await buy({ ticketType: "event", eventId, ticketDate: SATURDAY, email: "a@example.com" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as PurchaseResponse;
    expect(body).toEqual({
      message: "Museum special event ticket purchased",
      ticketId: expect.any(String),
      eventName: "Sasquatch Ballet",
      ticketType: "event",
      ticketDate: SATURDAY,
      confirmationCode: expect.stringMatching(/^ticket-event-[a-z0-9]{6}-[a-z0-9]{5}$/),
    });
    expect(await ticketRow(body.ticketId)).toMatchObject({ event_id: eventId, price_cents: 4000 });
  });

  it("records the price at the time of sale", async () => {
    const eventId = await createEvent([WEDNESDAY], { price: 10 });
    const first = (await (await buy({ ticketType: "event", eventId, ticketDate: WEDNESDAY, email: "a@example.com" })).json()) as PurchaseResponse;
    await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { price: 99.99 } });
    const second = (await (await buy({ ticketType: "event", eventId, ticketDate: WEDNESDAY, email: "a@example.com" })).json()) as PurchaseResponse;
    expect((await ticketRow(first.ticketId))!.price_cents).toBe(1000);
    expect((await ticketRow(second.ticketId))!.price_cents).toBe(9999);
  });

  it("refuses a date that is not one of the event's dates", async () => {
    const eventId = await createEvent([SATURDAY]);
    const before = await dumpDatabase();
    const problem = await expectValidationError(
      await buy({ ticketType: "event", eventId, ticketDate: WEDNESDAY, email: "a@example.com" }),
      "ticketDate",
    );
    expect(problem.errors![0]!.message).toContain(SATURDAY);
    expect(await dumpDatabase()).toBe(before);
  });

  it("refuses an event ticket without eventId", async () => {
    await expectValidationError(await buy({ ticketType: "event", ticketDate: SATURDAY, email: "a@example.com" }), "eventId");
  });

  it("refuses a malformed eventId", async () => {
    await expectValidationError(
      await buy({ ticketType: "event", eventId: "not-a-uuid", ticketDate: SATURDAY, email: "a@example.com" }),
      "eventId",
    );
  });

  it("answers 404 for an unknown event and for a deleted one", async () => {
    await expectProblem(
      await buy({ ticketType: "event", eventId: crypto.randomUUID(), ticketDate: SATURDAY, email: "a@example.com" }),
      404,
    );
    const eventId = await createEvent([SATURDAY]);
    expect((await api(`/v1.1/special-events/${eventId}`, { method: "DELETE" })).status).toBe(204);
    const before = await dumpDatabase();
    await expectProblem(await buy({ ticketType: "event", eventId, ticketDate: SATURDAY, email: "a@example.com" }), 404);
    expect(await dumpDatabase()).toBe(before);
  });

  it("keeps the tickets of a deleted event, marked cancelled", async () => {
    const eventId = await createEvent([SATURDAY]);
    const sold = (await (await buy({ ticketType: "event", eventId, ticketDate: SATURDAY, email: "a@example.com" })).json()) as PurchaseResponse;
    const general = (await (await buy({ ticketType: "general", ticketDate: WEDNESDAY, email: "a@example.com" })).json()) as PurchaseResponse;
    expect((await api(`/v1.1/special-events/${eventId}`, { method: "DELETE" })).status).toBe(204);
    expect((await ticketRow(sold.ticketId))!.cancelled_at).not.toBeNull();
    expect((await ticketRow(general.ticketId))!.cancelled_at).toBeNull();
  });
});

describe("POST /tickets under concurrency", () => {
  it("sells 50 concurrent purchases as 50 distinct tickets and codes", async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => buy({ ticketType: "general", ticketDate: WEDNESDAY, email: `buyer${i}@example.com` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as PurchaseResponse[];
    expect(new Set(bodies.map((b) => b.ticketId)).size).toBe(50);
    expect(new Set(bodies.map((b) => b.confirmationCode)).size).toBe(50);
    const { results } = await env.DB.prepare(
      `SELECT count(*) AS n FROM tickets WHERE buyer_email LIKE 'buyer%@example.com'`,
    ).all<{ n: number }>();
    expect(results[0]!.n).toBe(50);
  });
});
