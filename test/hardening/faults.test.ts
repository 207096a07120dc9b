// Injected D1 faults (test/d1-faults.ts, installed by test/worker.ts): 503 problem+json with
// Retry-After when D1 is unavailable, atomic writes when a batch fails inside
// D1, and a service that answers the next request as if nothing happened.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isD1Unavailable } from "../../src/platform/d1-errors";
import { clearD1Faults, firedD1Faults, injectD1Faults, type D1Fault } from "../support/d1-faults";
import {
  api,
  createEvent,
  dumpDatabase,
  eventBody,
  expectFailureLogs,
  expectProblem,
  nextWeekday,
  plusDays,
  todayInZone,
  type EventJson,
} from "../support/helpers";

expectFailureLogs();

/** The whole database, the login counter included (every request here logs in successfully). */
const snapshot = () => dumpDatabase();

/** Arms one fault and checks, after the request, that it fired (so the test hit its target). */
async function withFault(fault: D1Fault, request: () => Promise<Response>): Promise<Response> {
  injectD1Faults(fault);
  const res = await request();
  expect(firedD1Faults(), `the fault ${JSON.stringify(fault)} fired`).toHaveLength(1);
  clearD1Faults();
  return res;
}

async function expectUnavailable(res: Response) {
  const problem = await expectProblem(res, 503);
  expect(res.headers.get("Retry-After")).toBe("5");
  expect(problem.detail).not.toMatch(/D1|SQL|network|reset/i);
  return problem;
}

async function expectInternalError(res: Response) {
  const problem = await expectProblem(res, 500);
  const requestId = res.headers.get("X-Request-Id")!;
  expect(problem.detail).toContain(requestId);
  expect(problem.detail.replace(requestId, "")).not.toMatch(/D1|SQL|CHECK|constraint|museum_weekly_hours/i);
  return problem;
}

/** A general ticket date the museum is open on (a Wednesday, at least a week ahead). */
function openDay(): string {
  return nextWeekday(plusDays(todayInZone(env.MUSEUM_TIMEZONE), 8), 3);
}

function buy(body: Record<string, unknown>, key?: string) {
  return api("/v1.1/tickets", {
    method: "POST",
    as: "sales",
    json: body,
    headers: key ? { "Idempotency-Key": key } : {},
  });
}

async function ticketsOf(email: string) {
  const { results } = await env.DB.prepare("SELECT ticket_id FROM tickets WHERE buyer_email = ?1").bind(email).all<{ ticket_id: string }>();
  return results.map((row) => row.ticket_id);
}

describe("the seam", () => {
  it("classifies D1's retryable errors as unavailability, and nothing else", () => {
    for (const message of [
      "D1_ERROR: Network connection lost.",
      "D1_ERROR: Internal error while starting up D1 DB storage caused object to be reset.",
      "D1_ERROR: D1 DB reset because its code was updated.",
      "D1_ERROR: Cannot resolve D1 DB due to transient issue on remote node.",
      "D1_ERROR: D1 DB is overloaded. Too many requests queued.",
      "D1_ERROR: D1 DB storage operation exceeded timeout which caused object to be reset.",
    ]) {
      expect(isD1Unavailable(new Error(message)), message).toBe(true);
      expect(isD1Unavailable(new Error("D1_ERROR: query failed", { cause: new Error(message) })), message).toBe(true);
    }
    for (const message of [
      "D1_ERROR: CHECK constraint failed: day_of_week BETWEEN 0 AND 6: SQLITE_CONSTRAINT",
      "D1_ERROR: UNIQUE constraint failed: tickets.confirmation_code: SQLITE_CONSTRAINT",
      "D1_ERROR: no such table: nowhere: SQLITE_ERROR",
      "TypeError: undefined is not a function",
    ]) {
      expect(isD1Unavailable(new Error(message)), message).toBe(false);
    }
    expect(isD1Unavailable("Network connection lost")).toBe(false);
  });
});

describe("D1 unavailable: 503 problem+json with Retry-After, then the next request succeeds", () => {
  const MESSAGES = [
    "D1_ERROR: Network connection lost.",
    "D1_ERROR: Internal error while starting up D1 DB storage caused object to be reset.",
    "D1_ERROR: D1 DB reset because its code was updated.",
    "D1_ERROR: D1 DB is overloaded. Too many requests queued.",
  ];

  it.each(MESSAGES)("the login lookup fails: %s", async (message) => {
    await expectUnavailable(await withFault({ on: "batch", sql: "FROM accounts", message }, () => api("/v1.1/museum-hours")));
    expect((await api("/v1.1/museum-hours")).status).toBe(200);
  });

  it("on prepare, first, all and batch", async () => {
    const event = await createEvent({ dates: ["2091-06-01"] });
    const cases: [D1Fault, () => Promise<Response>, number][] = [
      [{ on: "prepare", sql: "museum_weekly_hours" }, () => api("/v1.1/museum-hours/schedule"), 200],
      [{ on: "all", sql: "FROM special_events e" }, () => api(`/v1.1/special-events/${event.eventId}`), 200],
      [{ on: "all", sql: "special_event_dates d" }, () => api("/v1.1/special-events?startDate=2091-06-01"), 200],
      [{ on: "batch", sql: "DELETE FROM museum_hours_exceptions" }, () => api("/v1.1/museum-hours/exceptions/2091-01-01", { method: "DELETE" }), 404],
      [{ on: "all", sql: "museum_weekly_hours" }, () => api("/v1.1/museum-hours"), 200],
      [{ on: "all", sql: "FROM d1_migrations" }, () => api("/healthz", { as: null }), 200],
    ];
    for (const [fault, request, nextStatus] of cases) {
      const before = await snapshot();
      await expectUnavailable(await withFault(fault, request));
      expect(await snapshot(), fault.on).toBe(before);
      expect((await request()).status, `after ${fault.on}`).toBe(nextStatus);
    }
  });

  it("a failure that is not unavailability stays a 500 that tells nothing", async () => {
    const res = await withFault({ on: "all", sql: "museum_weekly_hours", message: "D1_ERROR: near \"museum_weekly_hours\": syntax error: SQLITE_ERROR" }, () =>
      api("/v1.1/museum-hours"),
    );
    await expectInternalError(res);
    expect((await api("/v1.1/museum-hours")).status).toBe(200);
  });
});

describe("an event and its dates are written wholly or not at all", () => {
  it("create: D1 fails the batch after the event row and its dates were written; nothing remains", async () => {
    const body = eventBody({ dates: ["2092-01-10", "2092-01-11", "2092-01-12"] });
    const before = await snapshot();
    // A real CHECK violation inside the batch, after the event and its dates: D1 rolls all back.
    await expectInternalError(
      await withFault({ on: "batch", sql: "INSERT INTO special_events", effect: "constraint", after: 2 }, () =>
        api("/v1.1/special-events", { method: "POST", json: body }),
      ),
    );
    expect(await snapshot()).toBe(before);

    // Unavailable before the batch ran: 503, nothing written.
    await expectUnavailable(
      await withFault({ on: "batch", sql: "INSERT INTO special_events" }, () => api("/v1.1/special-events", { method: "POST", json: body })),
    );
    expect(await snapshot()).toBe(before);

    // The next request succeeds, whole.
    const res = await api("/v1.1/special-events", { method: "POST", json: body });
    expect(res.status).toBe(201);
    const created = (await res.json()) as EventJson;
    expect(created.dates).toEqual(["2092-01-10", "2092-01-11", "2092-01-12"]);
    const { results } = await env.DB.prepare("SELECT count(*) AS n FROM special_event_dates WHERE event_id = ?1").bind(created.eventId).all<{ n: number }>();
    expect(results[0]!.n).toBe(3);
  });

  it("update of name and dates: a failure after the old dates were deleted leaves the event as it was", async () => {
    const event = await createEvent({ dates: ["2093-02-01", "2093-02-02"] });
    const before = await snapshot();
    const change = { name: "Renamed in a failed batch", dates: ["2093-03-01"] };
    await expectInternalError(
      await withFault({ on: "batch", sql: "UPDATE special_events", effect: "constraint", after: 3 }, () =>
        api(`/v1.1/special-events/${event.eventId}`, { method: "PATCH", json: change }),
      ),
    );
    expect(await snapshot()).toBe(before);
    expect(await (await api(`/v1.1/special-events/${event.eventId}`)).json()).toEqual(event);

    const res = await api(`/v1.1/special-events/${event.eventId}`, { method: "PATCH", json: change });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject(change);
  });

  it("delete: a failure after the tickets were cancelled leaves event and tickets active", async () => {
    const event = await createEvent({ dates: [openDay()] });
    const sold = await buy({ ticketType: "event", eventId: event.eventId, ticketDate: event.dates[0], email: "keep@example.com" });
    expect(sold.status).toBe(201);
    const before = await snapshot();
    await expectInternalError(
      await withFault({ on: "batch", sql: "UPDATE tickets SET cancelled_at", effect: "constraint", after: 1 }, () =>
        api(`/v1.1/special-events/${event.eventId}`, { method: "DELETE" }),
      ),
    );
    expect(await snapshot()).toBe(before);
    expect((await api(`/v1.1/special-events/${event.eventId}`, { method: "DELETE" })).status).toBe(204);
  });
});

describe("a ticket and its idempotency record are written wholly or not at all", () => {
  it("D1 fails the sale's batch after the ticket row: no ticket, no record, and the key can be used again", async () => {
    const email = "atomic@example.com";
    const body = { ticketType: "general", ticketDate: openDay(), email, phone: "+1 555 0199" };
    const key = `atomic-${crypto.randomUUID()}`;
    const before = await snapshot();
    await expectInternalError(
      await withFault({ on: "batch", sql: "INSERT INTO tickets", effect: "constraint", after: 1 }, () => buy(body, key)),
    );
    // Neither the ticket nor the idempotency record (the claim was released).
    expect(await snapshot()).toBe(before);

    const retry = await buy(body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
    const { ticketId } = (await retry.json()) as { ticketId: string };
    expect(await ticketsOf(email)).toEqual([ticketId]);
  });

  it("D1 unavailable for the sale: 503 with Retry-After, nothing written, the retry with the same key buys once", async () => {
    const email = "unavailable@example.com";
    const body = { ticketType: "general", ticketDate: openDay(), email };
    const key = `unavailable-${crypto.randomUUID()}`;
    const before = await snapshot();
    await expectUnavailable(await withFault({ on: "batch", sql: "INSERT INTO tickets" }, () => buy(body, key)));
    expect(await snapshot()).toBe(before);

    const retry = await buy(body, key);
    expect(retry.status).toBe(201);
    const again = await buy(body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(await retry.text());
    expect(await ticketsOf(email)).toHaveLength(1);
  });

  it("the connection drops after D1 committed: 503, but ticket and record were written together, and the retry replays", async () => {
    const email = "lost-response@example.com";
    const body = { ticketType: "general", ticketDate: openDay(), email };
    const key = `lost-${crypto.randomUUID()}`;
    await expectUnavailable(await withFault({ on: "batch", sql: "INSERT INTO tickets", effect: "lost-response" }, () => buy(body, key)));

    const [ticketId] = await ticketsOf(email);
    expect(ticketId).toBeDefined();
    const record = await env.DB.prepare("SELECT resource_id, response_body FROM idempotency_keys WHERE idempotency_key = ?1")
      .bind(key)
      .first<{ resource_id: string; response_body: string }>();
    expect(record?.resource_id).toBe(ticketId);

    const retry = await buy(body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retry.text()).toBe(record!.response_body);
    expect(await ticketsOf(email)).toEqual([ticketId]);
  });
});
