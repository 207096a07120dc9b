// Fuzzing orders and box-office cancellations (see ./fuzz.ts for the invariants).
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, it } from "vitest";
import { api, createEvent, plusDays, todayInZone } from "../support/helpers";
import { PROPERTY_TIMEOUT_MS, body, bodies, date, expectSome, fuzz, oddString, optionalHeader, requests, segment, time, uuidLike } from "./fuzz";

const today = todayInZone(env.MUSEUM_TIMEZONE);
/** The next days the default schedule opens (Monday to Friday). */
const openDays = Array.from({ length: 40 }, (_, i) => plusDays(today, i + 1)).filter((d) => {
  const weekday = new Date(`${d}T12:00:00Z`).getUTCDay();
  return weekday >= 1 && weekday <= 5;
});
const events: { eventId: string; dates: string[] }[] = [];
const tickets: string[] = [];
const orders: string[] = [];

beforeAll(async () => {
  for (const offset of [4, 12]) {
    const event = await createEvent({ dates: [plusDays(today, offset), plusDays(today, offset + 1)] });
    events.push({ eventId: event.eventId, dates: event.dates });
  }
  for (let i = 0; i < 3; i++) {
    const res = await api("/v1.1/orders", {
      method: "POST",
      as: "sales",
      json: { email: "fuzz@example.com", tickets: [{ ticketType: "general", ticketDate: openDays[i] }, { ticketType: "general", ticketDate: openDays[i] }] },
    });
    if (res.status !== 201) throw new Error(`fixture order failed: ${res.status} ${await res.text()}`);
    const order = (await res.json()) as { orderId: string; tickets: { ticketId: string }[] };
    orders.push(order.orderId);
  }
  // Tickets of their own for the ticket cancellations (the order cancellations take the orders' tickets).
  for (let i = 0; i < 6; i++) {
    const res = await api("/v1.1/tickets", { method: "POST", as: "sales", json: { ticketType: "general", ticketDate: openDays[i], email: "fuzz@example.com" } });
    if (res.status !== 201) throw new Error(`fixture purchase failed: ${res.status} ${await res.text()}`);
    tickets.push(((await res.json()) as { ticketId: string }).ticketId);
  }
});

const validLine = fc.oneof(
  fc.constantFrom(...openDays).map((ticketDate) => ({ ticketType: "general", ticketDate })),
  fc.tuple(fc.nat(1), fc.nat(1)).map(([i, d]) => ({ ticketType: "event", eventId: events[i]!.eventId, ticketDate: events[i]!.dates[d]! })),
  fc.uuid().map((eventId) => ({ ticketType: "event", eventId, ticketDate: openDays[1]! })),
);
const lineModel = {
  ticketType: fc.constantFrom("general", "event", "GENERAL", ""),
  eventId: uuidLike(() => events.map((e) => e.eventId)),
  ticketDate: fc.oneof(fc.constantFrom(...openDays, today, plusDays(today, -1), plusDays(today, 400)), date),
  entryTime: time,
};
const line = bodies(validLine as fc.Arbitrary<Record<string, unknown>>, lineModel);
/** Addresses the service takes (zod's rule is stricter than RFC 5322: see docs/hardening.md). */
const plainEmail = fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9+_-]{1,8})?@[a-z0-9]{1,10}\.(com|org|museum)$/);
const validOrder = fc
  .tuple(fc.array(validLine, { minLength: 1, maxLength: 6 }), plainEmail)
  .map(([lines, email]) => ({ email, tickets: lines })) as fc.Arbitrary<Record<string, unknown>>;
const orderModel = {
  email: fc.oneof(plainEmail, fc.emailAddress(), oddString),
  phone: fc.oneof(fc.stringMatching(/^[0-9 +().-]{5,32}$/), oddString),
  tickets: fc.oneof(fc.array(line, { maxLength: 8 }), fc.array(validLine, { minLength: 49, maxLength: 52 })),
};
const idempotencyKey = optionalHeader(fc.oneof(fc.constantFrom("key-1", "key-2"), fc.string({ minLength: 1, maxLength: 255 }), fc.constant("k".repeat(256))));
const reason = bodies(fc.record({ reason: fc.constantFrom("Visitor ill", "x".repeat(200)) }, { requiredKeys: [] }), { reason: oddString });

describe("fuzzing orders and cancellations", () => {
  it(
    "POST /orders (body, Idempotency-Key)",
    async () => {
      const statuses = await fuzz("POST /orders", requests("POST", fc.constant("/v1.1/orders"), body(bodies(validOrder, orderModel)), { "Idempotency-Key": idempotencyKey }), {
        write: true,
      });
      expectSome(statuses, 201, 400, 404);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "GET /orders/{orderId} and POST /orders/{orderId}/cancellation (path, body, Idempotency-Key)",
    async () => {
      const orderId = segment(uuidLike(() => orders, 6), 6);
      const statuses = await fuzz(
        "orders/{id}",
        fc.oneof(
          requests("GET", orderId.map((id) => `/v1.1/orders/${id}`)),
          requests("POST", orderId.map((id) => `/v1.1/orders/${id}/cancellation`), body(reason), { "Idempotency-Key": idempotencyKey }),
        ),
        { write: true },
      );
      expectSome(statuses, 200, 400, 404);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "POST /tickets/{ticketId}/cancellation (path, body, Idempotency-Key)",
    async () => {
      const ticketId = segment(uuidLike(() => tickets, 6), 6);
      const statuses = await fuzz(
        "POST /tickets/{id}/cancellation",
        requests("POST", ticketId.map((id) => `/v1.1/tickets/${id}/cancellation`), body(reason), { "Idempotency-Key": idempotencyKey }),
        { write: true },
      );
      expectSome(statuses, 200, 400, 404, 409);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
