// Gates that keep working offline (contract): the codes online, the key set,
// the gate's configuration, and the end of the day at the gate; through the
// real Worker and D1.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { checkTicketCode, type GateConfig, type GateKeySet } from "museum-api-client/gate";
import { codeSignerAt, signTicketCode, verifyTicketCode } from "../../src/ticket-image";
import { useClock } from "../support/clock";
import { TEST_CODE_KEYS } from "../support/code-keys";
import { clearD1Faults, firedD1Faults, injectD1Faults } from "../support/d1-faults";
import { api, expectProblem } from "../support/helpers";
import { decodeQrPng } from "../support/qr-decode";
import { MEASURED_CLIENT, roundTripsOf, warmLogin } from "../support/round-trips";
import { legacyCodeOf, ticketCodeOf, workerCodeKeys } from "../support/ticket-codes";
import { buy, cancel, createEvent, order, type OrderResponse, type PurchaseResponse } from "../tickets/fixtures";
import { resultsOf, scanOf, upload } from "./offline-helpers";

afterEach(() => clearD1Faults());

const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function scan(code: string, as: "gate" | "admin" = "gate") {
  return api("/v1.1/admissions", { method: "POST", as, json: { code } });
}

async function sold(json: Record<string, unknown>): Promise<PurchaseResponse> {
  const res = await buy({ email: "visitor@example.com", ...json });
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

/** The code in the ticket's own image, as a gate reads it. */
async function imageCode(ticketId: string): Promise<string> {
  const image = await api(`/v1.1/tickets/${ticketId}/qr`, { as: "sales" });
  expect(image.status).toBe(200);
  const code = decodeQrPng(new Uint8Array(await image.arrayBuffer()))?.data;
  expect(code).toBeTruthy();
  return code!;
}

/**
 * Moves the ticket's sale to a second before or after the moment migration
 * 0016 (which came with the Ed25519 codes) was recorded as applied, then runs
 * migration 0020's backfill again, as it ran on a deployed database.
 */
async function soldAround0016(ticketIds: { before: string[]; after: string[] }) {
  const move = (ticketId: string, offset: string) =>
    env.DB.prepare(
      `UPDATE tickets SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', (SELECT applied_at FROM d1_migrations WHERE name = '0016_offline_scans.sql'), ?2)
        WHERE ticket_id = ?1`,
    ).bind(ticketId, offset);
  const backfill = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0020_"))!.queries.filter((query) => query.includes("SET sold_with_legacy_code = 1"));
  expect(backfill).toHaveLength(1);
  await env.DB.batch([
    ...ticketIds.before.map((id) => move(id, "-1 second")),
    ...ticketIds.after.map((id) => move(id, "+1 second")),
    ...backfill.map((query) => env.DB.prepare(query)),
  ]);
}

describe("codes at the gate", () => {
  it("admits the Ed25519 code of the ticket's image", async () => {
    useClock("2031-03-04T15:00:00Z"); // a Tuesday, 10:00 in New York
    const ticket = await sold({ ticketType: "general", ticketDate: "2031-03-04" });
    const code = await imageCode(ticket.ticketId);
    expect(code.split(".")).toHaveLength(3);
    expect(await verifyTicketCode(code, workerCodeKeys())).toMatchObject({ tid: ticket.ticketId, typ: "general", cat: "adult", kid: "T1" });
    expect((await scan(code)).status).toBe(201);
  });

  it("admits a code printed before (HMAC) only for a ticket sold before the Ed25519 codes came in, online and uploaded", async () => {
    useClock("2031-03-04T15:00:00Z");
    const line = { ticketType: "general", ticketDate: "2031-03-04" };
    const [printedBefore, uploadedBefore, soldAfter, cancelledAfter, uploadedAfter, sinceMigration] = await Promise.all(
      Array.from({ length: 6 }, () => sold(line)),
    );
    const heldRes = await order({ holdMinutes: 15, tickets: [line] });
    expect(heldRes.status).toBe(201);
    const held = ((await heldRes.json()) as OrderResponse).tickets[0]!;
    await soldAround0016({
      before: [printedBefore!.ticketId, uploadedBefore!.ticketId, held.ticketId],
      after: [soldAfter!.ticketId, cancelledAfter!.ticketId, uploadedAfter!.ticketId],
    });
    expect((await cancel(`/tickets/${cancelledAfter!.ticketId}`)).status).toBe(200);

    // Sold since: its code of the earlier kind is forged, refused as any forgery is (even once cancelled: no hint which check failed).
    const forged = await expectProblem(await scan("MT1.K1.G20310304.AAAAAAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAA"), 422);
    for (const ticket of [soldAfter!, cancelledAfter!, sinceMigration!]) {
      const problem = await expectProblem(await scan(await legacyCodeOf(ticket)), 422);
      expect(problem).toEqual({ ...forged, requestId: problem.requestId });
    }
    // A held ticket had no code, whenever it was held.
    expect((await expectProblem(await scan(await legacyCodeOf({ ...held, ticketType: "general" })), 422)).type).toBe("/problems/invalid-ticket-code");
    // Sold before: admitted by the code printed then.
    expect((await scan(await legacyCodeOf(printedBefore!))).status).toBe(201);
    // Its Ed25519 code admits a ticket sold since.
    expect((await scan(await ticketCodeOf(soldAfter!.ticketId))).status).toBe(201);

    const results = await resultsOf(await upload([scanOf(await legacyCodeOf(uploadedBefore!)), scanOf(await legacyCodeOf(uploadedAfter!))]));
    expect(results.map((r) => [r.ticketId, r.outcome])).toEqual([
      [uploadedBefore!.ticketId, "admitted"],
      [uploadedAfter!.ticketId, "invalid-ticket-code"],
    ]);
    const admitted = await env.DB.prepare("SELECT ticket_id FROM admissions WHERE ticket_id IN (?1, ?2, ?3, ?4, ?5) ORDER BY ticket_id")
      .bind(printedBefore!.ticketId, uploadedBefore!.ticketId, soldAfter!.ticketId, uploadedAfter!.ticketId, sinceMigration!.ticketId)
      .all<{ ticket_id: string }>();
    expect(admitted.results.map((row) => row.ticket_id)).toEqual([printedBefore!.ticketId, uploadedBefore!.ticketId, soldAfter!.ticketId].sort());

    // An offline gate admits none of them: its verifier reads Ed25519 codes only.
    const keys = (await (await api("/v1.1/gate/keys", { as: "gate" })).json()) as GateKeySet;
    const config = (await (await api("/v1.1/gate/config", { as: "gate" })).json()) as GateConfig;
    const offline = await checkTicketCode({ code: await legacyCodeOf(uploadedBefore!), keys, config, now: new Date() });
    expect(offline.outcome).toBe("invalid-ticket-code");
  });

  it("refuses forged codes alike (alg none, HS256, unknown kid, a member more, altered, truncated) before any D1 read", async () => {
    useClock("2031-03-04T15:00:00Z");
    const ticket = await sold({ ticketType: "general", ticketDate: "2031-03-04" });
    const code = await imageCode(ticket.ticketId);
    const [header, payload, signature] = code.split(".") as [string, string, string];
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const hmacKey = await crypto.subtle.importKey("raw", new TextEncoder().encode(TEST_CODE_KEYS[0]!.x), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const hsInput = `${b64url('{"alg":"HS256","kid":"T1"}')}.${payload}`;
    const hsSignature = new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(hsInput)));
    const forged = [
      `${b64url('{"alg":"none","kid":"T1"}')}.${payload}.`,
      `${hsInput}.${b64url(String.fromCharCode(...hsSignature))}`,
      `${b64url('{"alg":"EdDSA","kid":"T9"}')}.${payload}.${signature}`,
      `${header}.${b64url(JSON.stringify({ ...claims, email: "visitor@example.com" }))}.${signature}`,
      `${header}.${b64url(JSON.stringify({ ...claims, date: "2031-03-05" }))}.${signature}`,
      `${header}.${payload}.${signature.slice(0, -2)}`,
      code.slice(0, -1),
      `${header}.${payload}`,
    ];
    injectD1Faults({ on: "batch", sql: "admissions" }, { on: "first", sql: "admissions" });
    const details = new Set<string>();
    for (const candidate of forged) {
      const problem = await expectProblem(await scan(candidate), 422);
      expect(problem.type).toBe("/problems/invalid-ticket-code");
      details.add(problem.detail);
    }
    expect(details.size).toBe(1);
    expect(firedD1Faults()).toEqual([]);
  });

  it("reads Ed25519 codes in offline uploads too, and takes a code naming a held ticket (never sold, no image) for a forgery", async () => {
    useClock("2031-03-04T15:00:00Z");
    const ticket = await sold({ ticketType: "general", ticketDate: "2031-03-04" });
    const code = await imageCode(ticket.ticketId);
    const held = await order({ holdMinutes: 15, tickets: [{ ticketType: "general", ticketDate: "2031-03-04" }] });
    expect(held.status).toBe(201);
    const heldTicket = ((await held.json()) as OrderResponse).tickets[0]!;
    const heldCode = await signTicketCode({ ...heldTicket, category: "adult" }, codeSignerAt(workerCodeKeys(), new Date()));

    expect((await expectProblem(await scan(heldCode), 422)).type).toBe("/problems/invalid-ticket-code");
    const results = await resultsOf(await upload([scanOf(code), scanOf(heldCode)]));
    expect(results.map((r) => [r.ticketId, r.outcome])).toEqual([
      [ticket.ticketId, "admitted"],
      [heldTicket.ticketId, "invalid-ticket-code"],
    ]);
    const row = await env.DB.prepare("SELECT count(*) AS n FROM admissions WHERE ticket_id = ?1").bind(heldTicket.ticketId).first<{ n: number }>();
    expect(row!.n).toBe(0);
  });
});

describe("the end of the day at the gate (422 too-late)", () => {
  // 2031-03-04 is a Tuesday: open 09:00–18:00 (the seeded week), New York time.
  it("admits a general ticket until closing, and refuses it after with timeClose; an event ticket all day", async () => {
    useClock("2031-03-04T15:00:00Z");
    const general = await sold({ ticketType: "general", ticketDate: "2031-03-04" });
    const late = await sold({ ticketType: "general", ticketDate: "2031-03-04" });
    const eventId = await createEvent(["2031-03-04"]);
    const event = await sold({ ticketType: "event", eventId, ticketDate: "2031-03-04" });
    const [generalCode, lateCode, eventCode] = await Promise.all([general, late, event].map((t) => imageCode(t.ticketId)));

    useClock("2031-03-04T22:59:00Z"); // 17:59
    expect((await scan(generalCode!)).status).toBe(201);
    useClock("2031-03-04T23:00:00Z"); // 18:00: closed
    const problem = await expectProblem(await scan(lateCode!), 422);
    expect(problem).toMatchObject({ type: "/problems/too-late", timeClose: "18:00", ticketId: late.ticketId });
    const row = await env.DB.prepare("SELECT count(*) AS n FROM admissions WHERE ticket_id = ?1").bind(late.ticketId).first<{ n: number }>();
    expect(row!.n).toBe(0);
    useClock("2031-03-05T04:30:00Z"); // 23:30, still the 4th in New York
    expect((await scan(eventCode!)).status).toBe(201);
    // Too late is for today's tickets only: the same code on its day stays refused as not for today afterwards.
    useClock("2031-03-05T15:00:00Z");
    expect((await expectProblem(await scan(lateCode!), 422)).type).toBe("/problems/not-valid-today");
  });

  it("refuses a timed ticket after closing too, and follows the day's special hours", async () => {
    const day = "2031-03-11";
    useClock("2031-03-11T13:00:00Z"); // 09:00 (EDT from March 9th)
    const plan = { closed: false, timeOpen: "09:00", timeClose: "14:00", entrySlotMinutes: 60, slotCapacity: 10 };
    expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: plan })).status).toBe(201);
    const timed = await sold({ ticketType: "general", ticketDate: day, entryTime: "13:00" });
    const code = await imageCode(timed.ticketId);
    useClock("2031-03-11T18:00:00Z"); // 14:00
    expect(await expectProblem(await scan(code), 422)).toMatchObject({ type: "/problems/too-late", timeClose: "14:00" });
  });

  it("keeps online admission one D1 round trip", async () => {
    useClock("2031-03-04T15:00:00Z");
    const ticket = await sold({ ticketType: "general", ticketDate: "2031-03-04" });
    const code = await imageCode(ticket.ticketId);
    await warmLogin("gate");
    const admitted = await roundTripsOf(() => api("/v1.1/admissions", { method: "POST", as: "gate", json: { code }, headers: MEASURED_CLIENT }));
    expect(admitted.res.status).toBe(201);
    expect(admitted.roundTrips).toBe(1);
  });
});

describe("GET /gate/keys", () => {
  it("answers the JWK Set (gate, admin): every published key, public half only; 403 for the others", async () => {
    const expected = {
      keys: TEST_CODE_KEYS.map(({ kid, x }) => ({ kty: "OKP", crv: "Ed25519", x, kid, alg: "EdDSA", use: "sig" })),
    };
    for (const as of ["gate", "admin"] as const) {
      const res = await api("/v1.1/gate/keys", { as });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual(expected);
      expect(JSON.stringify(body)).not.toMatch(/"d"/);
    }
    for (const as of ["sales", "boxOffice"] as const) await expectProblem(await api("/v1.1/gate/keys", { as }), 403);
    await expectProblem(await api("/v1.1/gate/keys", { as: null }), 401);
  });

  it("reads no D1", async () => {
    await warmLogin("gate");
    const { res, roundTrips } = await roundTripsOf(() => api("/v1.1/gate/keys", { as: "gate", headers: MEASURED_CLIENT }));
    expect(res.status).toBe(200);
    expect(roundTrips).toBe(0);
  });
});

describe("GET /gate/config", () => {
  it("answers the rules of today and the next 6 days, open days only, in one round trip", async () => {
    useClock("2031-04-04T14:00:00Z"); // Friday 10:00 in New York
    const timed = { closed: false, timeOpen: "10:00", timeClose: "12:00", entrySlotMinutes: 30, slotCapacity: 5 };
    expect((await api("/v1.1/museum-hours/exceptions/2031-04-08", { method: "PUT", json: timed })).status).toBe(201);
    expect((await api("/v1.1/museum-hours/exceptions/2031-04-09", { method: "PUT", json: { closed: true } })).status).toBe(201);
    expect((await api("/v1.1/museum-hours/exceptions/2031-04-11", { method: "PUT", json: { closed: false, timeOpen: "12:00", timeClose: "20:00" } })).status).toBe(201);
    await warmLogin("gate");
    const { res, roundTrips } = await roundTripsOf(() => api("/v1.1/gate/config", { as: "gate", headers: MEASURED_CLIENT }));
    expect(res.status).toBe(200);
    expect(roundTrips).toBe(1);
    expect(await res.json()).toEqual({
      timeZone: "America/New_York",
      admissionEarlyMinutes: 15,
      categories: [{ categoryId: "adult", name: "Adult" }],
      days: [
        { date: "2031-04-04", timeOpen: "10:00", timeClose: "16:00" },
        // Saturday and Sunday are closed.
        { date: "2031-04-07", timeOpen: "09:00", timeClose: "18:00" },
        { date: "2031-04-08", timeOpen: "10:00", timeClose: "12:00", entrySlots: ["10:00", "10:30", "11:00", "11:30"] },
        // The 9th is closed by an exception; the 11th (special hours) is an eighth day.
        { date: "2031-04-10", timeOpen: "09:00", timeClose: "18:00" },
      ],
    });
  });

  it("lists active categories only, and is 403 for sales", async () => {
    await env.DB.batch([
      env.DB.prepare("INSERT OR IGNORE INTO ticket_categories (category_id, name, price_cents) VALUES ('member', 'Member', 0)"),
      env.DB.prepare("INSERT OR IGNORE INTO ticket_categories (category_id, name, price_cents, retired_at) VALUES ('student', 'Student', 100, '2026-01-01T00:00:00Z')"),
    ]);
    const res = await api("/v1.1/gate/config", { as: "admin" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { categories: unknown }).categories).toEqual([
      { categoryId: "adult", name: "Adult" },
      { categoryId: "member", name: "Member" },
    ]);
    await expectProblem(await api("/v1.1/gate/config", { as: "sales" }), 403);
  });
});

describe("the reference verifier (clients/typescript) against the service", () => {
  it("judges each code as POST /admissions does, from what a gate synced", async () => {
    useClock("2031-03-04T15:00:00Z"); // Tuesday 10:00 in New York
    const day = "2031-03-04";
    const general = await sold({ ticketType: "general", ticketDate: day });
    const late = await sold({ ticketType: "general", ticketDate: day });
    const tomorrow = await sold({ ticketType: "general", ticketDate: "2031-03-05" });
    const cancelled = await sold({ ticketType: "general", ticketDate: day });
    const event = await sold({ ticketType: "event", eventId: await createEvent([day]), ticketDate: day });
    expect((await api(`/v1.1/tickets/${cancelled.ticketId}/cancellation`, { method: "POST", as: "boxOffice", json: {} })).status).toBe(200);
    const code = Object.fromEntries(
      await Promise.all(Object.entries({ general, late, tomorrow, cancelled, event }).map(async ([name, t]) => [name, await imageCode(t.ticketId)])),
    ) as Record<"general" | "late" | "tomorrow" | "cancelled" | "event", string>;
    const keys = (await (await api("/v1.1/gate/keys", { as: "gate" })).json()) as GateKeySet;
    const config = (await (await api("/v1.1/gate/config", { as: "gate" })).json()) as GateConfig;
    const revoked = [cancelled.ticketId];
    const agree = async (scanned: string, at: string, outcome: string, type: string | null) => {
      useClock(at);
      expect((await checkTicketCode({ code: scanned, keys, config, revoked, now: new Date(at) })).outcome).toBe(outcome);
      const res = await scan(scanned);
      if (type === null) expect(res.status).toBe(201);
      else expect(((await res.json()) as { type: string }).type).toBe(type);
    };
    await agree(code.general, "2031-03-04T15:00:00Z", "admitted", null);
    await agree(code.tomorrow, "2031-03-04T15:00:00Z", "not-valid-today", "/problems/not-valid-today");
    await agree(code.cancelled, "2031-03-04T15:00:00Z", "revoked", "/problems/ticket-cancelled");
    await agree(code.late, "2031-03-04T23:00:00Z", "too-late", "/problems/too-late");
    await agree(code.event, "2031-03-05T04:00:00Z", "admitted", null);
    await agree(`${code.event.slice(0, -4)}AAAA`, "2031-03-04T15:00:00Z", "invalid-ticket-code", "/problems/invalid-ticket-code");
  });
});
