// Admission at the gate and a ticket's status (contract: "After the sale",
// "Admission at the gate"), through the real Worker and D1.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { signTicketToken } from "../../src/ticket-image";
import { clearD1Faults, firedD1Faults, injectD1Faults } from "../support/d1-faults";
import { ACCOUNTS, api, basic, expectProblem, expectValidationError, insertAccount, nextWeekday, plusDays, todayInZone } from "../support/helpers";
import { useClock } from "../support/clock";
import { decodeQrPng } from "../support/qr-decode";
import { codeFor, legacyCodeOf, ticketCodeOf } from "../support/ticket-codes";
import { buy, createEvent, type PurchaseResponse } from "../tickets/fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);

afterEach(() => {
  clearD1Faults();
});

/** An event ticket for `date` (events run on any day, so this works whatever today is). */
async function eventTicket(date = TODAY, eventId?: string): Promise<PurchaseResponse & { eventId: string }> {
  const id = eventId ?? (await createEvent([date, plusDays(date, 1)]));
  const res = await buy({ ticketType: "event", eventId: id, ticketDate: date, email: "visitor@example.com", phone: "+1 555 0100" });
  expect(res.status).toBe(201);
  return { ...((await res.json()) as PurchaseResponse), eventId: id };
}

/** The code the ticket's image carries. */
function codeOf(ticket: { ticketId: string }) {
  return ticketCodeOf(ticket.ticketId);
}

function scan(code: unknown, as: "gate" | "admin" | "sales" = "gate", headers: Record<string, string> = {}) {
  return api("/v1.1/admissions", { method: "POST", as, json: { code }, headers });
}

async function admissionRows(ticketId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM admissions WHERE ticket_id = ?1").bind(ticketId).first<{ n: number }>();
  return row!.n;
}

describe("roles", () => {
  it("gate may only admit: 403 on every other operation, reads included", async () => {
    const ticket = await eventTicket();
    const attempts: [string, string, unknown?][] = [
      ["GET", "/v1.1/museum-hours"],
      ["GET", "/v1.1/special-events"],
      ["GET", `/v1.1/special-events/${ticket.eventId}`],
      ["POST", "/v1.1/tickets", { ticketType: "event", eventId: ticket.eventId, ticketDate: TODAY, email: "a@example.com" }],
      ["GET", `/v1.1/tickets/${ticket.ticketId}`],
      ["GET", `/v1.1/tickets/${ticket.ticketId}/qr`],
      ["GET", "/v1.1/admissions/summary"],
      ["GET", "/v1.1/museum-hours/schedule"],
      ["DELETE", `/v1.1/special-events/${ticket.eventId}`],
    ];
    for (const [method, path, json] of attempts) {
      const problem = await expectProblem(await api(path, { method, as: "gate", json }), 403);
      expect(problem.detail).toContain("'gate'");
    }
  });

  it("sales may not admit nor read the attendance; admin may admit", async () => {
    const ticket = await eventTicket();
    const code = await codeOf(ticket);
    await expectProblem(await scan(code, "sales"), 403);
    await expectProblem(await api("/v1.1/admissions/summary", { as: "sales" }), 403);
    expect(await admissionRows(ticket.ticketId)).toBe(0);
    const res = await scan(code, "admin");
    expect(res.status).toBe(201);
    expect(((await res.json()) as { gate: string }).gate).toBe(ACCOUNTS.admin.name);
  });
});

describe("POST /admissions", () => {
  it("admits a valid ticket for today once, then answers 409 already-admitted with the first admission", async () => {
    const ticket = await eventTicket();
    const code = await codeOf(ticket);
    const res = await scan(code);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toEqual({
      admissionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ticketId: ticket.ticketId,
      ticketType: "event",
      ticketDate: TODAY,
      eventId: ticket.eventId,
      eventName: ticket.eventName,
      admittedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      gate: ACCOUNTS.gate.name,
    });

    const again = await expectProblem(await scan(code, "admin"), 409);
    expect(again).toMatchObject({
      type: "/problems/already-admitted",
      admittedAt: body.admittedAt,
      gate: ACCOUNTS.gate.name,
    });
    expect(await admissionRows(ticket.ticketId)).toBe(1);

    const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`, { as: "sales" })).json()) as Record<string, string>;
    expect(status).toMatchObject({ status: "admitted", admittedAt: body.admittedAt });
  });

  it("admits the code read from the ticket's own image", async () => {
    const ticket = await eventTicket();
    const image = await api(`/v1.1/tickets/${ticket.ticketId}/qr`, { as: "sales" });
    const decoded = decodeQrPng(new Uint8Array(await image.arrayBuffer()));
    expect(decoded).not.toBeNull();
    expect((await scan(decoded!.data)).status).toBe(201);
  });

  it("refuses every code that is not genuine alike (422 invalid-ticket-code), without reading D1", async () => {
    const ticket = await eventTicket();
    // Codes of the earlier kind, altered: refused as any other before any D1 read.
    const code = await legacyCodeOf(ticket);
    const otherKey = await signTicketToken(ticket, { current: { id: "K1", secret: "another-secret-".repeat(4) } });
    const unknownKeyId = await signTicketToken(ticket, { current: { id: "ZZ", secret: "7e57".repeat(16) } });
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const forged = [
      "hello",
      code.slice(0, -1),
      code.toLowerCase(),
      flip(code, code.length - 3),
      flip(code, 12),
      code.replace(".E", ".G"),
      otherKey,
      unknownKeyId,
      `${code} `,
      `${code}\u0000`,
      "x".repeat(512),
    ];
    injectD1Faults({ on: "batch", sql: "admissions" }, { on: "first", sql: "admissions" });
    const details = new Set<string>();
    for (const candidate of forged) {
      const problem = await expectProblem(await scan(candidate), 422);
      expect(problem.type).toBe("/problems/invalid-ticket-code");
      expect(Object.keys(problem).sort()).toEqual(["detail", "requestId", "status", "title", "type"]);
      details.add(problem.detail);
    }
    expect(details.size).toBe(1);
    expect(firedD1Faults()).toEqual([]);
    expect(await admissionRows(ticket.ticketId)).toBe(0);
  });

  it("a genuine code of a ticket this database does not hold is not genuine here", async () => {
    const code = await codeFor({ ticketId: crypto.randomUUID(), ticketType: "general", ticketDate: TODAY, category: "adult" });
    expect((await expectProblem(await scan(code), 422)).type).toBe("/problems/invalid-ticket-code");
  });

  it("refuses a ticket for another day (422 not-valid-today, with its date)", async () => {
    const tomorrow = plusDays(TODAY, 1);
    const ticket = await eventTicket(tomorrow);
    const problem = await expectProblem(await scan(await codeOf(ticket)), 422);
    expect(problem).toMatchObject({ type: "/problems/not-valid-today", ticketDate: tomorrow });
    expect(await admissionRows(ticket.ticketId)).toBe(0);
  });

  it("refuses a cancelled ticket (409 ticket-cancelled), also when it is not for today", async () => {
    const eventId = await createEvent([TODAY, plusDays(TODAY, 1)]);
    const today = await eventTicket(TODAY, eventId);
    const tomorrow = await eventTicket(plusDays(TODAY, 1), eventId);
    expect((await api(`/v1.1/special-events/${eventId}`, { method: "DELETE" })).status).toBe(204);
    for (const ticket of [today, tomorrow]) {
      const problem = await expectProblem(await scan(await codeOf(ticket)), 409);
      expect(problem).toMatchObject({ type: "/problems/ticket-cancelled", cancelledAt: expect.any(String) });
      expect(await admissionRows(ticket.ticketId)).toBe(0);
    }
  });

  it("validates the body strictly: 1–512 characters, nothing else", async () => {
    await expectValidationError(await api("/v1.1/admissions", { method: "POST", as: "gate", json: {} }), "code");
    await expectValidationError(await scan(""), "code");
    await expectValidationError(await scan("x".repeat(513)), "code");
    await expectValidationError(await scan(42), "code");
    await expectValidationError(
      await api("/v1.1/admissions", { method: "POST", as: "gate", json: { code: "x", gate: "other" } }),
      "gate",
    );
  });
});

describe("timed tickets at the gate", () => {
  it("admits from 15 minutes before the entry time; earlier is 422 too-early with the entryTime", async () => {
    const day = "2031-01-08";
    useClock("2031-01-08T13:00:00Z"); // 08:00 in New York
    const plan = { closed: false, timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 60, slotCapacity: 10 };
    expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: plan })).status).toBe(201);
    const res = await buy({ ticketType: "general", ticketDate: day, entryTime: "10:00", email: "visitor@example.com" });
    expect(res.status).toBe(201);
    const ticket = (await res.json()) as PurchaseResponse;
    const code = await codeOf(ticket);

    useClock("2031-01-08T14:44:00Z"); // 09:44: 16 minutes early
    const early = await expectProblem(await scan(code), 422);
    expect(early).toMatchObject({ type: "/problems/too-early", entryTime: "10:00", ticketId: ticket.ticketId });
    expect(await admissionRows(ticket.ticketId)).toBe(0);

    useClock("2031-01-08T14:45:00Z"); // 09:45
    expect((await scan(code)).status).toBe(201);
  });
});

describe("the end of the day at the gate", () => {
  it("admits general tickets, timed or not, until the day's closing time; then 422 too-late with timeClose; event tickets all day", async () => {
    const day = "2031-01-10";
    useClock("2031-01-10T13:00:00Z"); // 08:00 in New York
    const plan = { closed: false, timeOpen: "09:00", timeClose: "17:00" };
    expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: plan })).status).toBe(201);
    const general = [];
    for (let i = 0; i < 2; i++) {
      const res = await buy({ ticketType: "general", ticketDate: day, email: "visitor@example.com" });
      expect(res.status).toBe(201);
      general.push((await res.json()) as PurchaseResponse);
    }
    const event = await eventTicket(day);

    useClock("2031-01-10T21:59:59Z"); // 16:59:59
    expect((await scan(await codeOf(general[0]!))).status).toBe(201);
    useClock("2031-01-10T22:00:00Z"); // 17:00: closed
    const late = await expectProblem(await scan(await codeOf(general[1]!)), 422);
    expect(late).toMatchObject({ type: "/problems/too-late", ticketId: general[1]!.ticketId, timeClose: "17:00" });
    expect(await admissionRows(general[1]!.ticketId)).toBe(0);
    useClock("2031-01-11T04:30:00Z"); // 23:30
    expect((await scan(await codeOf(event))).status).toBe(201);
  });

  it("a timed ticket is admitted after its slot, until closing", async () => {
    const day = "2031-01-13";
    useClock("2031-01-13T13:00:00Z");
    const plan = { closed: false, timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 60, slotCapacity: 10 };
    expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: plan })).status).toBe(201);
    const timed = [];
    for (let i = 0; i < 2; i++) {
      const res = await buy({ ticketType: "general", ticketDate: day, entryTime: "10:00", email: "visitor@example.com" });
      timed.push((await res.json()) as PurchaseResponse);
    }
    useClock("2031-01-13T22:59:00Z"); // 17:59, hours after its slot
    expect((await scan(await codeOf(timed[0]!))).status).toBe(201);
    useClock("2031-01-13T23:00:00Z"); // 18:00
    expect((await expectProblem(await scan(await codeOf(timed[1]!)), 422)).type).toBe("/problems/too-late");
  });
});

describe("POST /admissions with an Idempotency-Key", () => {
  it("a gate whose 201 was lost gets that 201 again, not 409 for its own scan", async () => {
    const ticket = await eventTicket();
    const code = await codeOf(ticket);
    const key = crypto.randomUUID();
    // The first answer is lost on the way: the admission is on record all the same.
    injectD1Faults({ on: "batch", sql: "INSERT INTO admissions", effect: "lost-response" });
    await expectProblem(await scan(code, "gate", { "Idempotency-Key": key }), 503);
    expect(firedD1Faults()).toHaveLength(1);
    const retry = await scan(code, "gate", { "Idempotency-Key": key });
    // The lost batch held the key's answer too: the retry is its replay.
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    const admission = (await retry.json()) as { admissionId: string; ticketId: string; gate: string };
    expect(admission).toMatchObject({ ticketId: ticket.ticketId, gate: ACCOUNTS.gate.name });
    expect(await admissionRows(ticket.ticketId)).toBe(1);
    const again = await scan(code, "gate", { "Idempotency-Key": key });
    expect(await again.json()).toEqual(admission);

    // Without the key, or under a new one, the scan is what it is: already admitted.
    expect((await expectProblem(await scan(code), 409)).type).toBe("/problems/already-admitted");
    expect((await expectProblem(await scan(code, "gate", { "Idempotency-Key": crypto.randomUUID() }), 409)).type).toBe(
      "/problems/already-admitted",
    );
    // The same key for another code is another request: 422.
    const other = await codeOf(await eventTicket());
    await expectProblem(await scan(other, "gate", { "Idempotency-Key": key }), 422);
  });

  it("keeps no key for a refused scan: sent again later with the same key, it is judged again", async () => {
    const day = "2031-01-09";
    useClock("2031-01-09T13:00:00Z"); // 08:00 in New York
    const plan = { closed: false, timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 60, slotCapacity: 10 };
    expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: plan })).status).toBe(201);
    const res = await buy({ ticketType: "general", ticketDate: day, entryTime: "10:00", email: "visitor@example.com" });
    const code = await codeOf((await res.json()) as PurchaseResponse);
    const key = crypto.randomUUID();
    expect((await expectProblem(await scan(code, "gate", { "Idempotency-Key": key }), 422)).type).toBe("/problems/too-early");
    useClock("2031-01-09T14:50:00Z"); // 09:50
    const admitted = await scan(code, "gate", { "Idempotency-Key": key });
    expect(admitted.status).toBe(201);
    expect(admitted.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("refuses a malformed key", async () => {
    const code = await codeOf(await eventTicket());
    await expectValidationError(await scan(code, "gate", { "Idempotency-Key": "" }), "header.idempotency-key");
  });
});

describe("exactly once under load", () => {
  it("50 simultaneous scans of one ticket: one 201, 49 409 already-admitted, one admission row", async () => {
    const ticket = await eventTicket();
    const code = await codeOf(ticket);
    const responses = await Promise.all(Array.from({ length: 50 }, () => scan(code)));
    const statuses = responses.map((res) => res.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const bodies = await Promise.all(responses.map((res) => res.json() as Promise<{ type?: string; admittedAt: string }>));
    const winner = bodies[statuses.indexOf(201)]!;
    for (const [index, body] of bodies.entries()) {
      if (statuses[index] === 409) expect(body).toMatchObject({ type: "/problems/already-admitted", admittedAt: winner.admittedAt });
    }
    expect(await admissionRows(ticket.ticketId)).toBe(1);
  });

  it("ten gates scanning ten different tickets at once all admit", async () => {
    const eventId = await createEvent([TODAY]);
    const tickets = [];
    for (let i = 0; i < 10; i++) tickets.push(await eventTicket(TODAY, eventId));
    const gates = Array.from({ length: 10 }, (_, i) => ({ name: `test-gate-${i}`, secret: `gate-${i}-secret-for-tests-only-0123456789` }));
    for (const gate of gates) await insertAccount(gate.name, gate.secret, "gate");
    const responses = await Promise.all(
      tickets.map(async (ticket, i) =>
        api("/v1.1/admissions", {
          method: "POST",
          as: null,
          json: { code: await codeOf(ticket) },
          headers: { Authorization: basic(gates[i]!.name, gates[i]!.secret) },
        }),
      ),
    );
    expect(responses.map((res) => res.status)).toEqual(Array(10).fill(201));
    const bodies = (await Promise.all(responses.map((res) => res.json()))) as { gate: string; ticketId: string }[];
    expect(bodies.map((b) => b.gate)).toEqual(gates.map((g) => g.name));
    expect(bodies.map((b) => b.ticketId)).toEqual(tickets.map((t) => t.ticketId));
  });
});

describe("GET /tickets/{ticketId}", () => {
  it("shows a valid ticket without the buyer's contact details", async () => {
    const ticket = await eventTicket(plusDays(TODAY, 1));
    const res = await api(`/v1.1/tickets/${ticket.ticketId}`, { as: "sales" });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain("visitor@example.com");
    expect(text).not.toContain("555");
    expect(JSON.parse(text)).toEqual({
      ticketId: ticket.ticketId,
      ticketType: "event",
      ticketDate: plusDays(TODAY, 1),
      eventId: ticket.eventId,
      eventName: ticket.eventName,
      category: "adult",
      price: 12.5,
      currency: "USD",
      status: "valid",
      confirmationCode: ticket.confirmationCode,
    });
  });

  it("shows a cancelled ticket, and 404 / 400 for unknown / malformed ids", async () => {
    const ticket = await eventTicket();
    await api(`/v1.1/special-events/${ticket.eventId}`, { method: "DELETE" });
    const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as Record<string, string>;
    expect(status).toMatchObject({ status: "cancelled", cancelledAt: expect.any(String) });
    expect(status.admittedAt).toBeUndefined();
    await expectProblem(await api(`/v1.1/tickets/${crypto.randomUUID()}`), 404);
    await expectValidationError(await api("/v1.1/tickets/not-a-uuid"), "path.ticketId");
  });
});

describe("GET /admissions/summary", () => {
  it("counts sold (cancelled included), admitted and cancelled per day, general and per event", async () => {
    // A Wednesday within the year of sales (the museum is open on Wednesdays).
    const day = nextWeekday(plusDays(TODAY, 200), 3);
    const kept = await createEvent([day], { name: "Summary A" });
    const dropped = await createEvent([day], { name: "Summary B" });
    for (let i = 0; i < 3; i++) await eventTicket(day, kept);
    await eventTicket(day, dropped);
    await api(`/v1.1/special-events/${dropped}`, { method: "DELETE" });
    await expect(buy({ ticketType: "general", ticketDate: day, email: "g@example.com" })).resolves.toHaveProperty("status", 201);

    const res = await api(`/v1.1/admissions/summary?date=${day}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      date: day,
      general: { sold: 1, admitted: 0, cancelled: 0, byCategory: { adult: { sold: 1, admitted: 0, cancelled: 0 } } },
      events: [
        { eventId: kept, name: "Summary A", sold: 3, admitted: 0, cancelled: 0, byCategory: { adult: { sold: 3, admitted: 0, cancelled: 0 } } },
        { eventId: dropped, name: "Summary B", sold: 1, admitted: 0, cancelled: 1, byCategory: { adult: { sold: 1, admitted: 0, cancelled: 1 } } },
      ],
      conflicts: 0,
    });
    await expectValidationError(await api("/v1.1/admissions/summary?date=2091-02-30"), "query.date");
  });

  it("defaults to today and counts admissions", async () => {
    const ticket = await eventTicket();
    await scan(await codeOf(ticket));
    const summary = (await (await api("/v1.1/admissions/summary")).json()) as {
      date: string;
      events: { eventId: string; sold: number; admitted: number }[];
    };
    expect(summary.date).toBe(TODAY);
    expect(summary.events.find((e) => e.eventId === ticket.eventId)).toMatchObject({ sold: 1, admitted: 1 });
  });

  it("finds a day's tickets by one index (query plan)", async () => {
    const { attendanceQuery } = await import("../../src/tickets/statements/admission");
    const query = attendanceQuery("2091-03-05");
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).bind(...query.values).all<{ detail: string }>();
    const plan = results.map((r) => r.detail).join("\n");
    expect(plan).toMatch(/USING (COVERING )?INDEX tickets_by_date \(ticket_date=\?\)/);
    expect(plan).not.toMatch(/SCAN tickets(?! USING)/);
  });
});
