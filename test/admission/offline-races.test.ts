// Offline uploads racing each other, online admissions and cancellations, on
// real D1: a ticket is admitted exactly once, and every other scan of it is
// a recorded conflict (contract: "Gates that keep working offline").
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, basic, insertAccount, todayInZone } from "../support/helpers";
import { buy, cancel, createEvent, type PurchaseResponse } from "../tickets/fixtures";
import { codeOf, type Conflict, resultsOf, scanOf, upload } from "./offline-helpers";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);

async function eventTicket(eventId: string): Promise<PurchaseResponse> {
  const res = await buy({ ticketType: "event", eventId, ticketDate: TODAY, email: "visitor@example.com" });
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

async function admissionsOf(ticketId: string): Promise<{ gate: string; admitted_at: string }[]> {
  const { results } = await env.DB.prepare("SELECT gate, admitted_at FROM admissions WHERE ticket_id = ?1").bind(ticketId).all();
  return results as { gate: string; admitted_at: string }[];
}

async function conflictsOf(ticketId: string): Promise<Conflict[]> {
  const all = (await (await api(`/v1.1/admissions/conflicts?date=${TODAY}`)).json()) as Conflict[];
  return all.filter((c) => c.ticketId === ticketId);
}

describe("simultaneous uploads of one ticket's scan", () => {
  it("20 gates uploading at once: exactly one admitted, 19 already-admitted conflicts, one admission", async () => {
    const ticket = await eventTicket(await createEvent([TODAY]));
    const code = await codeOf(ticket);
    const gates = Array.from({ length: 20 }, (_, i) => ({ name: `offline-gate-${i}`, secret: `offline-gate-${i}-secret-for-tests-0123456789` }));
    for (const gate of gates) await insertAccount(gate.name, gate.secret, "gate");
    const scans = gates.map((_, i) => scanOf(code, (i + 1) * 1000));
    const responses = await Promise.all(
      gates.map((gate, i) => upload([scans[i]!], { headers: { Authorization: basic(gate.name, gate.secret) } })),
    );
    const results = (await Promise.all(responses.map(resultsOf))).map(([result]) => result!);
    const admitted = results.filter((r) => r.outcome === "admitted");
    expect(admitted).toHaveLength(1);
    expect(results.filter((r) => r.outcome === "already-admitted")).toHaveLength(19);
    const winner = gates[results.indexOf(admitted[0]!)]!;
    const admissions = await admissionsOf(ticket.ticketId);
    expect(admissions).toEqual([{ gate: winner.name, admitted_at: admitted[0]!.scannedAt }]);
    for (const result of results) expect(result.admittedAt).toBe(admitted[0]!.scannedAt);

    const conflicts = await conflictsOf(ticket.ticketId);
    expect(conflicts).toHaveLength(19);
    expect(new Set(conflicts.map((c) => c.gate))).toEqual(new Set(gates.filter((g) => g !== winner).map((g) => g.name)));
    expect(conflicts.every((c) => c.outcome === "already-admitted" && c.admittedAt === admitted[0]!.scannedAt)).toBe(true);
  });
});

describe("an online admission racing an upload", () => {
  it("exactly one of them admits, each time; the upload that lost is a conflict", async () => {
    const eventId = await createEvent([TODAY]);
    for (let round = 0; round < 8; round++) {
      const ticket = await eventTicket(eventId);
      const code = await codeOf(ticket);
      const [online, offline] = await Promise.all([
        api("/v1.1/admissions", { method: "POST", as: "admin", json: { code } }),
        upload([scanOf(code)]),
      ]);
      const [result] = await resultsOf(offline);
      if (online.status === 201) {
        expect(result!.outcome).toBe("already-admitted");
        expect(await conflictsOf(ticket.ticketId)).toHaveLength(1);
      } else {
        expect(online.status).toBe(409);
        expect(result!.outcome).toBe("admitted");
        expect(await conflictsOf(ticket.ticketId)).toEqual([]);
      }
      expect(await admissionsOf(ticket.ticketId)).toHaveLength(1);
    }
  });
});

describe("a cancellation racing an upload", () => {
  it("one consistent outcome each time: admitted and the refund refused, or cancelled and the scan a recorded conflict", async () => {
    const eventId = await createEvent([TODAY]);
    for (let round = 0; round < 8; round++) {
      const ticket = await eventTicket(eventId);
      const [refund, offline] = await Promise.all([cancel(`/tickets/${ticket.ticketId}`), upload([scanOf(await codeOf(ticket))])]);
      const [result] = await resultsOf(offline);
      const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as { status: string };
      if (result!.outcome === "admitted") {
        expect(refund.status).toBe(409);
        expect(status.status).toBe("admitted");
        expect(await admissionsOf(ticket.ticketId)).toHaveLength(1);
        expect(await conflictsOf(ticket.ticketId)).toEqual([]);
      } else {
        // The scan was made a minute before the refund: the ticket was used, then refunded.
        expect(result!.outcome).toBe("cancelled-after-entry");
        expect(refund.status).toBe(200);
        expect(status.status).toBe("cancelled");
        expect(await admissionsOf(ticket.ticketId)).toEqual([]);
        expect((await conflictsOf(ticket.ticketId)).map((c) => c.outcome)).toEqual(["cancelled-after-entry"]);
      }
    }
  });

  it("a ticket cancelled at the same moment an upload admits it stays one or the other, never both", async () => {
    const ticket = await eventTicket(await createEvent([TODAY]));
    const code = await codeOf(ticket);
    const responses = await Promise.all([
      ...Array.from({ length: 5 }, () => upload([scanOf(code)])),
      cancel(`/tickets/${ticket.ticketId}`),
    ]);
    const outcomes = (await Promise.all(responses.slice(0, 5).map(resultsOf))).map(([r]) => r!.outcome);
    const cancelled = responses[5]!.status === 200;
    expect(outcomes.filter((o) => o === "admitted")).toHaveLength(cancelled ? 0 : 1);
    expect(await admissionsOf(ticket.ticketId)).toHaveLength(cancelled ? 0 : 1);
    // Cancelled first: every scan was made before it, and the first upload to arrive holds the ticket's one entry.
    expect(outcomes.filter((o) => o === "cancelled-after-entry")).toHaveLength(cancelled ? 1 : 0);
    expect(outcomes.filter((o) => o === "already-admitted")).toHaveLength(4);
  });
});
