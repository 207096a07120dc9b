// Offline scans uploaded later, and the conflicts they leave (contract:
// "Gates that keep working offline"), through the real Worker and D1.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { useClock } from "../support/clock";
import { ACCOUNTS, api, dumpDatabase, expectProblem, expectValidationError } from "../support/helpers";
import { codeFor } from "../support/ticket-codes";
import { buy, cancel, createEvent, type PurchaseResponse } from "../tickets/fixtures";
import { codeOf, type Conflict, HOUR, MINUTE, resultsOf, scanOf, upload } from "./offline-helpers";

/** Opens `day` 09:00–18:00 (timed: hourly slots). */
async function openDay(day: string, timed = false) {
  const plan = { closed: false, timeOpen: "09:00", timeClose: "18:00", ...(timed ? { entrySlotMinutes: 60, slotCapacity: 10 } : {}) };
  expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: plan })).status).toBe(201);
}

async function sold(json: Record<string, unknown>): Promise<PurchaseResponse> {
  const res = await buy({ email: "visitor@example.com", ...json });
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

async function conflictsOf(date: string): Promise<Conflict[]> {
  const res = await api(`/v1.1/admissions/conflicts?date=${date}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Conflict[];
}

describe("POST /admissions/offline: judging", () => {
  it("corrects a device clock off by hours, admits at the scan's corrected time, and shows the device's own", async () => {
    const day = "2031-01-08";
    useClock("2031-01-08T17:00:00Z"); // 12:00 in New York
    await openDay(day);
    const ticket = await sold({ ticketType: "general", ticketDate: day });
    // The device's clock is 5 hours behind: it scanned 20 minutes ago by its clock (07:40 device time).
    const deviceNow = Date.now() - 5 * HOUR;
    const scannedAt = new Date(deviceNow - 20 * MINUTE).toISOString();
    const [result] = await resultsOf(
      await upload([{ scanId: crypto.randomUUID(), code: await codeOf(ticket), scannedAt }], { sentAt: new Date(deviceNow).toISOString() }),
    );
    expect(result).toEqual({
      scanId: expect.any(String),
      outcome: "admitted",
      ticketId: ticket.ticketId,
      scannedAt: "2031-01-08T16:40:00.000Z",
      deviceScannedAt: scannedAt,
      admittedAt: "2031-01-08T16:40:00.000Z",
    });
    const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as Record<string, string>;
    expect(status).toMatchObject({ status: "admitted", admittedAt: "2031-01-08T16:40:00.000Z" });
    const online = await expectProblem(await api("/v1.1/admissions", { method: "POST", as: "gate", json: { code: await codeOf(ticket) } }), 409);
    expect(online).toMatchObject({ type: "/problems/already-admitted", admittedAt: "2031-01-08T16:40:00.000Z", gate: ACCOUNTS.gate.name });
  });

  it("judges each scan at its own time: its day, the entry window, the day's end; refused ones are conflicts", async () => {
    const day = "2031-01-15";
    useClock("2031-01-15T13:00:00Z"); // sold at 08:00 on the day
    await openDay(day, true);
    await openDay("2031-01-16", true);
    const timed = await sold({ ticketType: "general", ticketDate: day, entryTime: "11:00" });
    const late = await sold({ ticketType: "general", ticketDate: day, entryTime: "12:00" });
    const tomorrow = await sold({ ticketType: "general", ticketDate: "2031-01-16", entryTime: "10:00" });
    const event = await createEvent([day]);
    const eventTicket = await sold({ ticketType: "event", eventId: event, ticketDate: day });
    useClock("2031-01-16T14:00:00Z"); // uploaded the next morning
    const at = (time: string) => new Date(`${day}T${time}:00-05:00`).toISOString();
    const scans = [
      { scanId: crypto.randomUUID(), code: await codeOf(timed), scannedAt: at("10:44") }, // 16 minutes early
      { scanId: crypto.randomUUID(), code: await codeOf(timed), scannedAt: at("10:45") }, // in its window
      { scanId: crypto.randomUUID(), code: await codeOf(timed), scannedAt: at("10:50") }, // twice
      { scanId: crypto.randomUUID(), code: await codeOf(late), scannedAt: at("18:00") }, // the museum closed
      { scanId: crypto.randomUUID(), code: await codeOf(tomorrow), scannedAt: at("12:00") }, // not that day
      { scanId: crypto.randomUUID(), code: await codeOf(eventTicket), scannedAt: at("21:30") }, // an event ticket: all day
      { scanId: crypto.randomUUID(), code: "not a code", scannedAt: at("12:00") },
      { scanId: crypto.randomUUID(), code: await codeFor({ ...timed, ticketId: crypto.randomUUID(), category: "adult" }), scannedAt: at("12:00") },
    ];
    const results = await resultsOf(await upload(scans));
    expect(results.map((r) => r.outcome)).toEqual([
      "too-early",
      "admitted",
      "already-admitted",
      "too-late",
      "not-valid-today",
      "admitted",
      "invalid-ticket-code",
      "invalid-ticket-code",
    ]);
    expect(results.map((r) => r.scanId)).toEqual(scans.map((s) => s.scanId));
    expect(results[1]!.admittedAt).toBe(at("10:45"));
    expect(results[2]).toMatchObject({ ticketId: timed.ticketId, admittedAt: at("10:45") });
    expect(results[0]!.admittedAt).toBeUndefined();
    expect(results[6]!.ticketId).toBeUndefined();
    expect(results[7]!.ticketId).toBeUndefined();

    // The day's conflicts: its tickets' and the codes naming no ticket scanned that day, in upload order.
    const conflicts = await conflictsOf(day);
    expect(conflicts.map((c) => [c.scanId, c.outcome])).toEqual(
      [0, 2, 3, 6, 7].map((i) => [scans[i]!.scanId, results[i]!.outcome]),
    );
    expect(conflicts[0]).toEqual({
      scanId: scans[0]!.scanId,
      ticketId: timed.ticketId,
      scannedAt: at("10:44"),
      deviceScannedAt: at("10:44"),
      gate: ACCOUNTS.gate.name,
      outcome: "too-early",
      admittedAt: at("10:45"),
    });
    expect(conflicts[2]!.admittedAt).toBeUndefined();
    // The scan of tomorrow's ticket is that day's conflict.
    expect((await conflictsOf("2031-01-16")).map((c) => c.scanId)).toEqual([scans[4]!.scanId]);
    const summary = (await (await api(`/v1.1/admissions/summary?date=${day}`)).json()) as { conflicts: number };
    expect(summary.conflicts).toBe(5);
  });

  it("a ticket cancelled before the scan is ticket-cancelled; cancelled after it, cancelled-after-entry; neither admits", async () => {
    const day = "2031-01-22";
    useClock("2031-01-22T15:00:00Z"); // 10:00 in New York
    const event = await createEvent([day]);
    const before = await sold({ ticketType: "event", eventId: event, ticketDate: day });
    const after = await sold({ ticketType: "event", eventId: event, ticketDate: day });
    const scans = [scanOf(await codeOf(before), 30 * MINUTE), scanOf(await codeOf(after), 30 * MINUTE)];
    useClock("2031-01-22T14:00:00Z"); // before: cancelled an hour before the scans
    expect((await cancel(`/tickets/${before.ticketId}`)).status).toBe(200);
    useClock("2031-01-22T15:00:00Z"); // after: cancelled once the scan was made, before the upload
    expect((await cancel(`/tickets/${after.ticketId}`)).status).toBe(200);

    const results = await resultsOf(await upload(scans));
    expect(results.map((r) => r.outcome)).toEqual(["ticket-cancelled", "cancelled-after-entry"]);
    for (const ticket of [before, after]) {
      const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as Record<string, string>;
      expect(status.status).toBe("cancelled");
      expect(status.admittedAt).toBeUndefined();
    }
    expect((await conflictsOf(day)).map((c) => c.outcome)).toEqual(["ticket-cancelled", "cancelled-after-entry"]);
  });

  it("of a ticket's scans made before its cancellation, the first by scannedAt is cancelled-after-entry, the later ones already-admitted", async () => {
    const day = "2031-01-23";
    useClock("2031-01-23T15:00:00Z"); // 10:00 in New York
    const ticket = await sold({ ticketType: "event", eventId: await createEvent([day]), ticketDate: day });
    const code = await codeOf(ticket);
    useClock("2031-01-23T16:00:00Z"); // 11:00: refunded
    expect((await cancel(`/tickets/${ticket.ticketId}`)).status).toBe(200);
    useClock("2031-01-23T17:00:00Z"); // 12:00: uploaded
    const at = (time: string) => new Date(`${day}T${time}:00-05:00`).toISOString();
    // In the device's list out of time order: the upload's order does not decide which came first.
    const scans = [
      { scanId: crypto.randomUUID(), code, scannedAt: at("10:40") },
      { scanId: crypto.randomUUID(), code, scannedAt: at("10:20") },
      { scanId: crypto.randomUUID(), code, scannedAt: at("11:30") }, // after the refund
      { scanId: crypto.randomUUID(), code, scannedAt: at("10:30") },
    ];
    const results = await resultsOf(await upload(scans));
    expect(results.map((r) => r.outcome)).toEqual(["already-admitted", "cancelled-after-entry", "ticket-cancelled", "already-admitted"]);
    expect(results.every((r) => r.admittedAt === undefined)).toBe(true);

    // A later upload (another gate's, here admin's) with a scan made before all of these: the first entry reached the service already.
    const [late] = await resultsOf(await upload([{ scanId: crypto.randomUUID(), code, scannedAt: at("10:05") }], { as: "admin" }));
    expect(late!.outcome).toBe("already-admitted");
    // Sent again, the first upload answers as it did.
    expect(await resultsOf(await upload(scans))).toEqual(results);

    const conflicts = await conflictsOf(day);
    expect(conflicts.map((c) => [c.scannedAt, c.outcome])).toEqual([
      [at("10:40"), "already-admitted"],
      [at("10:20"), "cancelled-after-entry"],
      [at("11:30"), "ticket-cancelled"],
      [at("10:30"), "already-admitted"],
      [at("10:05"), "already-admitted"],
    ]);
    const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as Record<string, string>;
    expect(status).toMatchObject({ status: "cancelled" });
    expect(status.admittedAt).toBeUndefined();
  });

  it("of a valid ticket's scans in one upload, the first by scannedAt admits it, at its time", async () => {
    const day = "2031-01-24";
    useClock("2031-01-24T15:00:00Z");
    const ticket = await sold({ ticketType: "event", eventId: await createEvent([day]), ticketDate: day });
    const code = await codeOf(ticket);
    useClock("2031-01-24T17:00:00Z");
    const at = (time: string) => new Date(`${day}T${time}:00-05:00`).toISOString();
    const scans = [
      { scanId: crypto.randomUUID(), code, scannedAt: at("10:40") },
      { scanId: crypto.randomUUID(), code, scannedAt: at("10:20") },
      { scanId: crypto.randomUUID(), code, scannedAt: at("10:20") }, // the same moment: the upload's order decides
    ];
    const results = await resultsOf(await upload(scans));
    expect(results.map((r) => [r.outcome, r.admittedAt])).toEqual([
      ["already-admitted", at("10:20")],
      ["admitted", at("10:20")],
      ["already-admitted", at("10:20")],
    ]);
    const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as Record<string, string>;
    expect(status).toMatchObject({ status: "admitted", admittedAt: at("10:20") });
  });

  it("rejects a stale scan and one too far ahead without refusing the rest; rejected scans are no conflicts", async () => {
    const day = "2031-01-29";
    useClock("2031-01-29T15:00:00Z");
    const event = await createEvent([day]);
    const tickets = [];
    for (let i = 0; i < 3; i++) tickets.push(await sold({ ticketType: "event", eventId: event, ticketDate: day }));
    const scans = [
      scanOf(await codeOf(tickets[0]!), 7 * 24 * HOUR + MINUTE), // over 7 days old
      scanOf(await codeOf(tickets[1]!), -6 * MINUTE), // 6 minutes ahead
      scanOf(await codeOf(tickets[2]!), -4 * MINUTE), // 4 minutes ahead: judged
    ];
    const results = await resultsOf(await upload(scans));
    expect(results.map((r) => r.outcome)).toEqual(["rejected", "rejected", "admitted"]);
    expect(results[0]!.admittedAt).toBeUndefined();
    expect(await conflictsOf(day)).toEqual([]);
    const status = (await (await api(`/v1.1/tickets/${tickets[0]!.ticketId}`)).json()) as Record<string, string>;
    expect(status.status).toBe("valid");
  });

  it("the first scan to reach the service admits: an online admission before the upload makes the earlier offline scan a conflict", async () => {
    const day = "2031-02-05";
    useClock("2031-02-05T15:00:00Z");
    const ticket = await sold({ ticketType: "event", eventId: await createEvent([day]), ticketDate: day });
    const code = await codeOf(ticket);
    const offline = scanOf(code, 10 * MINUTE);
    expect((await api("/v1.1/admissions", { method: "POST", as: "admin", json: { code } })).status).toBe(201);
    const [result] = await resultsOf(await upload([offline]));
    expect(result).toMatchObject({ outcome: "already-admitted", admittedAt: "2031-02-05T15:00:00.000Z" });
    expect(await conflictsOf(day)).toEqual([expect.objectContaining({ scanId: offline.scanId, outcome: "already-admitted" })]);
  });
});

describe("POST /admissions/offline: scanId", () => {
  it("a scanId sent again with its code answers its first result and records nothing new", async () => {
    const day = "2031-02-12";
    useClock("2031-02-12T15:00:00Z");
    const event = await createEvent([day]);
    const ticket = await sold({ ticketType: "event", eventId: event, ticketDate: day });
    const scans = [scanOf(await codeOf(ticket)), scanOf(await codeOf(ticket)), scanOf("forged")];
    const first = await resultsOf(await upload(scans));
    expect(first.map((r) => r.outcome)).toEqual(["admitted", "already-admitted", "invalid-ticket-code"]);
    const before = await dumpDatabase();
    useClock("2031-02-12T15:30:00Z");
    // Sent again later (its answer was lost): the first results, nothing recorded.
    expect(await resultsOf(await upload(scans))).toEqual(first);
    expect(await dumpDatabase()).toBe(before);
    // Again in another order, one of them twice, with a new scan: only the new one is judged.
    const another = await sold({ ticketType: "event", eventId: event, ticketDate: day });
    const fresh = scanOf(await codeOf(another));
    const again = await resultsOf(await upload([scans[2]!, fresh, scans[0]!, scans[1]!, scans[0]!]));
    expect(again).toEqual([first[2], expect.objectContaining({ outcome: "admitted", ticketId: another.ticketId }), first[0], first[1], first[0]]);
    const rows = await env.DB.prepare("SELECT scan_id FROM offline_scans WHERE ticket_date = ?1").bind(day).all<{ scan_id: string }>();
    expect(rows.results.map((r) => r.scan_id).sort()).toEqual([scans[0]!.scanId, scans[1]!.scanId, fresh.scanId].sort());
  });

  it("a scanId of the same account sent with another code refuses the whole upload (422), recording nothing", async () => {
    const day = "2031-02-19";
    useClock("2031-02-19T15:00:00Z");
    const event = await createEvent([day]);
    const one = await sold({ ticketType: "event", eventId: event, ticketDate: day });
    const two = await sold({ ticketType: "event", eventId: event, ticketDate: day });
    const first = scanOf(await codeOf(one));
    expect((await resultsOf(await upload([first])))[0]!.outcome).toBe("admitted");
    const before = await dumpDatabase();

    const fresh = scanOf(await codeOf(two));
    const reused = { ...first, code: await codeOf(two) };
    const problem = await expectProblem(await upload([fresh, reused]), 422);
    expect(problem).toMatchObject({ type: "/problems/scan-id-reused", errors: [{ path: "scans[1].scanId", message: expect.any(String) }] });
    // Twice within one upload, with two codes.
    const twice = scanOf(await codeOf(two));
    const within = await expectProblem(await upload([twice, fresh, { ...twice, code: "other" }]), 422);
    expect(within.errors?.map((e) => e.path)).toEqual(["scans[2].scanId"]);
    expect(await dumpDatabase()).toBe(before);

    // Another account's scanIds are its own: the same scanId is a new scan there.
    const [admins] = await resultsOf(await upload([reused], { as: "admin" }));
    expect(admins).toMatchObject({ scanId: first.scanId, outcome: "admitted", ticketId: two.ticketId });
  });
});

describe("POST /admissions/offline: input", () => {
  const good = () => scanOf("some code");

  it("refuses bad input (400 naming each field), recording nothing", async () => {
    useClock("2031-02-26T15:00:00Z");
    const before = await dumpDatabase();
    const body = (json: unknown) => api("/v1.1/admissions/offline", { method: "POST", as: "gate", json });
    const sentAt = new Date().toISOString();
    await expectValidationError(await body({ sentAt, scans: Array.from({ length: 501 }, good) }), "scans");
    await expectValidationError(await body({ sentAt, scans: [] }), "scans");
    await expectValidationError(await body({ sentAt, scans: "x" }), "scans");
    await expectValidationError(await body({ sentAt }), "scans");
    await expectValidationError(await body({ scans: [good()] }), "sentAt");
    await expectValidationError(await body({ sentAt, scans: [good()], gate: "other" }), "gate");
    await expectValidationError(await body({ sentAt, scans: [good(), { ...good(), scanId: "not-a-uuid" }] }), "scans[1].scanId");
    await expectValidationError(await body({ sentAt, scans: [{ ...good(), code: "x".repeat(513) }] }), "scans[0].code");
    await expectValidationError(await body({ sentAt, scans: [{ ...good(), code: "" }] }), "scans[0].code");
    await expectValidationError(await body({ sentAt, scans: [{ ...good(), code: 42 }] }), "scans[0].code");
    await expectValidationError(await body({ sentAt, scans: [{ scanId: crypto.randomUUID() }] }), "scans[0].code", "scans[0].scannedAt");
    await expectValidationError(await body({ sentAt, scans: [{ ...good(), extra: 1 }] }), "scans[0].extra");
    for (const bad of ["2031-02-26T10:00:00", "2031-02-30T10:00:00Z", "2031-02-26 10:00:00Z", "yesterday", "2031-02-26T25:00:00Z", "", 1767225600000, null]) {
      await expectValidationError(await body({ sentAt, scans: [{ ...good(), scannedAt: bad }] }), "scans[0].scannedAt");
      await expectValidationError(await body({ sentAt: bad, scans: [good()] }), "sentAt");
    }
    expect(await dumpDatabase()).toBe(before);
  });

  it("takes 500 scans of the longest codes in one upload, and offsets other than Z", async () => {
    useClock("2031-02-26T15:00:00Z");
    const scans = Array.from({ length: 500 }, () => ({ ...scanOf("x".repeat(512)), scannedAt: "2031-02-26T09:59:00-05:00" }));
    const results = await resultsOf(await upload(scans, { sentAt: "2031-02-26T16:00:00+01:00" }));
    expect(results).toHaveLength(500);
    expect(new Set(results.map((r) => r.outcome))).toEqual(new Set(["invalid-ticket-code"]));
    expect(results[0]).toMatchObject({ scannedAt: "2031-02-26T14:59:00.000Z", deviceScannedAt: "2031-02-26T14:59:00.000Z" });
  });

  it("is for gate and admin only; the conflicts are for admin only", async () => {
    await expectProblem(await upload([good()], { as: "sales" }), 403);
    await expectProblem(await api("/v1.1/admissions/conflicts", { as: "gate" }), 403);
    await expectProblem(await api("/v1.1/admissions/conflicts", { as: "sales" }), 403);
    await expectValidationError(await api("/v1.1/admissions/conflicts?date=2031-02-30"), "query.date");
    expect((await api("/v1.1/admissions/conflicts")).status).toBe(200);
  });
});
