// Fuzzing ticket sales, ticket images, the public routes, and arbitrary
// methods and paths (see ./fuzz.ts for the invariants).
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, it } from "vitest";
import { api, createEvent, plusDays, todayInZone } from "../support/helpers";
import {
  PROPERTY_TIMEOUT_MS,
  body,
  bodies,
  date,
  expectSome,
  fuzz,
  oddString,
  optionalHeader,
  query,
  segment,
  uuidLike,
  requests,
} from "./fuzz";

const today = todayInZone(env.MUSEUM_TIMEZONE);
/** The next days the default schedule opens (Monday to Friday). */
const openDays = Array.from({ length: 40 }, (_, i) => plusDays(today, i + 1)).filter((d) => {
  const weekday = new Date(`${d}T12:00:00Z`).getUTCDay();
  return weekday >= 1 && weekday <= 5;
});
const events: { eventId: string; dates: string[] }[] = [];
const tickets: string[] = [];

beforeAll(async () => {
  for (const offset of [3, 10, 20]) {
    const event = await createEvent({ dates: [plusDays(today, offset), plusDays(today, offset + 1)] });
    events.push({ eventId: event.eventId, dates: event.dates });
  }
  for (const json of [
    { ticketType: "general", ticketDate: openDays[0], email: "fuzz-a@example.com" },
    { ticketType: "event", eventId: events[0]!.eventId, ticketDate: events[0]!.dates[0], email: "fuzz-b@example.com", phone: "+1 555 0100" },
  ]) {
    const res = await api("/v1.1/tickets", { method: "POST", as: "sales", json });
    if (res.status !== 201) throw new Error(`fixture purchase failed: ${res.status} ${await res.text()}`);
    tickets.push(((await res.json()) as { ticketId: string }).ticketId);
  }
});

/** Addresses the service takes (zod's rule is stricter than RFC 5322: see docs/hardening.md). */
const plainEmail = fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9+_-]{1,8})?@[a-z0-9]{1,10}(-[a-z0-9]{1,5})?\.(com|org|museum)$/);
const email = fc.oneof(
  plainEmail,
  fc.emailAddress(),
  fc.constantFrom("a@b.co", "no-at-sign", "a@", "@b.co", "a@b", `${"x".repeat(250)}@b.co`, "a b@c.de", "ä@example.com", "a@example.com\u0000"),
  oddString,
);
const phone = fc.oneof(fc.stringMatching(/^[0-9 +().-]{5,32}$/), fc.constantFrom("1234", "x".repeat(33), "+1 555 0100", "555-0100 ext 5"), oddString);
const ticketModel = {
  ticketType: fc.constantFrom("general", "event", "GENERAL", "vip", ""),
  eventId: uuidLike(() => events.map((e) => e.eventId)),
  ticketDate: fc.oneof(fc.constantFrom(...openDays, ...events.flatMap((e) => e.dates), today, plusDays(today, -1), plusDays(today, 400)), date),
  email,
  phone,
};
const validTicket = fc.oneof(
  fc.record({ ticketType: fc.constant("general"), ticketDate: fc.constantFrom(...openDays), email: plainEmail, phone: fc.stringMatching(/^[0-9 +-]{5,20}$/) }, { requiredKeys: ["ticketType", "ticketDate", "email"] }),
  fc
    .tuple(fc.constantFrom(...[0, 1, 2]), fc.nat(1), fc.emailAddress())
    .map(([i, d, mail]) => ({ ticketType: "event", eventId: events[i]!.eventId, ticketDate: events[i]!.dates[d]!, email: mail })),
  // An event that does not exist (404).
  fc.tuple(fc.uuid(), plainEmail).map(([eventId, mail]) => ({ ticketType: "event", eventId, ticketDate: openDays[2]!, email: mail })),
) as fc.Arbitrary<Record<string, unknown>>;

/** A few keys shared by many cases, so reuse with another body (422) and replays happen. */
const idempotencyKey = optionalHeader(fc.oneof(fc.constantFrom("key-1", "key-2", "key-3"), fc.string({ minLength: 1, maxLength: 255 }), fc.constant("k".repeat(256))));

describe("fuzzing tickets and everything else", () => {
  it(
    "POST /tickets (body, Idempotency-Key)",
    async () => {
      const statuses = await fuzz(
        "POST /tickets",
        requests("POST", fc.constant("/v1.1/tickets"), body(bodies(validTicket, ticketModel)), { "Idempotency-Key": idempotencyKey }),
        { write: true },
      );
      expectSome(statuses, 201, 400, 404);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "GET /tickets/{ticketId}/qr (path, If-None-Match)",
    async () => {
      const ticketId = segment(uuidLike(() => tickets, 6), 6);
      const etag = optionalHeader(fc.oneof(fc.constantFrom("*", 'W/"x"', '"x"', '"a", "b"'), oddString.filter((s) => /^[\x20-\x7e]*$/.test(s))));
      const statuses = await fuzz(
        "GET /tickets/{id}/qr",
        requests("GET", ticketId.map((id) => `/v1.1/tickets/${id}/qr`), undefined, { "If-None-Match": etag }),
      );
      expectSome(statuses, 200, 400, 404);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "GET / and /healthz (query, headers)",
    async () => {
      const target = fc.tuple(fc.constantFrom("/", "/healthz", "/v1.1/openapi.json", "/docs"), query({ x: oddString, page: oddString })).map(([p, q]) => `${p}${q}`);
      const statuses = await fuzz("GET public", requests("GET", target));
      expectSome(statuses, 200);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "any method on any path",
    async () => {
      // workerd's Request accepts the standard methods only (any other throws before the Worker runs).
      const method = fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "get", "post", "delete");
      const prefix = fc.constantFrom(
        "",
        "/v1.1",
        "/v1.1/special-events",
        "/v1.1/museum-hours",
        "/v1.1/museum-hours/exceptions",
        "/v1.1/tickets",
        "/docs",
        "/healthz",
        "/v1.1/openapi.json",
        "/v1.0",
        "//v1.1",
      );
      const tail = fc.array(segment(fc.oneof(oddString, fc.constantFrom("qr", "schedule", "exceptions", "..", "openapi.json"))), { maxLength: 4 });
      const target = fc.tuple(prefix, tail, query({ startDate: date, limit: oddString })).map(([p, t, q]) => `${p}/${t.join("/")}${q}`);
      const payload = fc.option(body(fc.jsonValue({ maxDepth: 2 })), { nil: undefined });
      const statuses = await fuzz("any method, any path", requests(method, target, payload), { write: true });
      expectSome(statuses, 404, 405);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
