// The feeds over the revocation log (contract: "Cancellation at the box
// office", GET /cancellations; "Gates that keep working offline", GET
// /gate/revocations), through the real Worker and D1: pages that never skip
// nor repeat, every cause with its source, `by` and refund, who sees what,
// and cursors a client tampered with.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { importTickets } from "../../src/tickets/statements/sale";
import { runStep } from "../../src/platform/batch";
import { type AccountKey, ACCOUNTS, api, expectProblem, expectValidationError, plusDays, todayInZone } from "../support/helpers";
import { buy, cancel, createEvent, order, type OrderResponse, type PurchaseResponse, type TicketStatusJson } from "../tickets/fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);
let nextDay = 30;
/** A day no other test of this file uses. */
const freshDay = () => plusDays(TODAY, nextDay++);

async function openDay(date = freshDay()): Promise<string> {
  const res = await api(`/v1.1/museum-hours/exceptions/${date}`, { method: "PUT", json: { closed: false, timeOpen: "09:00", timeClose: "18:00" } });
  expect(res.status).toBe(201);
  return date;
}

const general = (ticketDate: string) => ({ ticketType: "general", ticketDate, email: "visitor@example.com" });

async function sold(json: unknown, as: AccountKey = "sales"): Promise<PurchaseResponse> {
  const res = await buy(json, { as });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

type Cancellation = {
  ticketId: string;
  orderId?: string;
  ticketDate: string;
  cancelledAt: string;
  source: string;
  by?: string;
  refund: { amount: number };
  currency: string;
};
type Revocation = { ticketId: string; ticketDate: string; revokedAt: string };
type Feed = "cancellations" | "gate/revocations";
type Page<F extends Feed> = { entries: (F extends "cancellations" ? Cancellation : Revocation)[]; next: string };

async function page<F extends Feed>(feed: F, since: string | undefined, as: AccountKey): Promise<Page<F>> {
  const res = await api(`/v1.1/${feed}${since === undefined ? "" : `?since=${encodeURIComponent(since)}`}`, { as });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get("Cache-Control")).toBe("no-store");
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual([feed === "cancellations" ? "cancellations" : "revocations", "next"].sort());
  return { entries: (feed === "cancellations" ? body.cancellations : body.revocations) as Page<F>["entries"], next: body.next as string };
}

/** Every entry after `since`, page by page, and the pages' sizes; the last page is the first that is not full. */
async function readAll<F extends Feed>(feed: F, since: string | undefined, as: AccountKey) {
  const entries: Page<F>["entries"] = [];
  const sizes: number[] = [];
  let cursor = since;
  for (;;) {
    const { entries: more, next } = await page(feed, cursor, as);
    entries.push(...more);
    sizes.push(more.length);
    if (more.length === 0) expect(next).toBe(cursor ?? next);
    cursor = next;
    if (more.length < 1000) return { entries, sizes, next: cursor };
  }
}

/** The cursor at the feed's end now: what comes later is what a test wrote. */
async function endOf(feed: Feed, as: AccountKey = "admin"): Promise<string> {
  return (await readAll(feed, undefined, as)).next;
}

/** A cursor made by hand: base64url of `json`, as a client tampering with one would. */
function forged(json: string): string {
  return btoa(json).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

describe("GET /cancellations", () => {
  it("2,500 cancellations of one closure, read in pages of 1,000: none skipped, none repeated", async () => {
    const day = await openDay();
    const tickets = Array.from({ length: 2500 }, (_, n) => ({
      ticketId: crypto.randomUUID(),
      ticketType: "general" as const,
      ticketDate: day,
      confirmationCode: `ticket-general-${crypto.randomUUID().slice(0, 6)}-${n.toString(36).padStart(5, "0")}`,
      email: "crowd@example.com",
      priceCents: 2500,
      soldBy: ACCOUNTS.sales.name,
    }));
    await runStep(importTickets(env.DB, tickets));
    const written = await env.DB.prepare("SELECT count(*) AS n FROM tickets WHERE ticket_date = ?1").bind(day).first<{ n: number }>();
    expect(written!.n).toBe(2500);
    const since = await endOf("cancellations");
    const gateSince = await endOf("gate/revocations", "gate");
    const kioskSince = await endOf("cancellations", "kiosk");

    const closed = await api(`/v1.1/museum-hours/exceptions/${day}?cancelTickets=true`, { method: "PUT", json: { closed: true } });
    expect(closed.status).toBe(200);

    const { entries, sizes } = await readAll("cancellations", since, "admin");
    expect(sizes).toEqual([1000, 1000, 500]);
    const ids = entries.map((entry) => entry.ticketId);
    expect(new Set(ids).size).toBe(2500);
    expect(new Set(ids)).toEqual(new Set(tickets.map((ticket) => ticket.ticketId)));
    for (const entry of entries) {
      expect(entry).toEqual({
        ticketId: expect.any(String),
        ticketDate: day,
        cancelledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        source: "closure",
        refund: { amount: 25 },
        currency: "USD",
      });
    }

    // The seller sees them all; another sales account none.
    expect((await readAll("cancellations", since, "sales")).entries.map((entry) => entry.ticketId)).toEqual(ids);
    expect((await readAll("cancellations", kioskSince, "kiosk")).entries).toEqual([]);
    // A gate learns the same codes, in the same order.
    const revoked = await readAll("gate/revocations", gateSince, "gate");
    expect(revoked.sizes).toEqual([1000, 1000, 500]);
    expect(revoked.entries.map((entry) => entry.ticketId)).toEqual(ids);
    expect(revoked.entries[0]).toEqual({ ticketId: ids[0], ticketDate: day, revokedAt: entries[0]!.cancelledAt });
  });

  it("reads page by page without a gap or a repeat while cancellations keep coming", async () => {
    const day = await openDay();
    let since = await endOf("cancellations");
    const seen: string[] = [];
    const cancelled: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (let i = 0; i < 2; i += 1) {
        const ticket = await sold(general(day));
        expect((await cancel(`/tickets/${ticket.ticketId}`)).status).toBe(200);
        cancelled.push(ticket.ticketId);
      }
      const read = await page("cancellations", since, "sales");
      seen.push(...read.entries.map((entry) => entry.ticketId));
      since = read.next;
      // Read again at the end: nothing new, the same cursor.
      expect(await page("cancellations", since, "sales")).toEqual({ entries: [], next: since });
    }
    expect(seen).toEqual(cancelled);
  });

  it("has every cause: the box office (with `by`), a closure, a removed date, a deleted event; refunds as recorded", async () => {
    const since = await endOf("cancellations");
    const kioskSince = await endOf("cancellations", "kiosk");
    const day = await openDay();
    const atDesk = await sold(general(day));
    const bySeller = await sold(general(day));
    const byKiosk = await sold(general(day), "kiosk");
    const orderRes = await order({ email: "family@example.com", tickets: [general(day), general(day)].map(({ email: _, ...line }) => line) });
    expect(orderRes.status).toBe(201);
    const ordered = (await orderRes.json()) as OrderResponse;
    const deletedEvent = await createEvent([freshDay()], { price: 12.5 });
    const eventTicket = await sold({ ticketType: "event", eventId: deletedEvent, ticketDate: plusDays(TODAY, nextDay - 1), email: "visitor@example.com" });
    const [keptDate, removedDate] = [freshDay(), freshDay()];
    const movedEvent = await createEvent([keptDate, removedDate], { price: 7.25 });
    const removed = await sold({ ticketType: "event", eventId: movedEvent, ticketDate: removedDate, email: "visitor@example.com" }, "kiosk");

    expect((await cancel(`/tickets/${atDesk.ticketId}`, { reason: "Visitor ill" }, { as: "boxOffice" })).status).toBe(200);
    expect((await cancel(`/tickets/${bySeller.ticketId}`)).status).toBe(200);
    expect((await cancel(`/orders/${ordered.orderId}`, {}, { as: "admin" })).status).toBe(200);
    expect((await api(`/v1.1/special-events/${deletedEvent}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/v1.1/special-events/${movedEvent}?cancelTickets=true`, { method: "PATCH", json: { dates: [keptDate] } })).status).toBe(200);
    expect((await api(`/v1.1/museum-hours/exceptions/${day}?cancelTickets=true`, { method: "PUT", json: { closed: true } })).status).toBe(200);

    const { entries } = await readAll("cancellations", since, "admin");
    const entry = (ticketId: string) => entries.find((e) => e.ticketId === ticketId);
    expect(entries.map((e) => e.ticketId)).toEqual([
      atDesk.ticketId, bySeller.ticketId, ordered.tickets[0]!.ticketId, ordered.tickets[1]!.ticketId,
      eventTicket.ticketId, removed.ticketId, byKiosk.ticketId,
    ]);
    expect(entry(atDesk.ticketId)).toEqual({
      ticketId: atDesk.ticketId, ticketDate: day, cancelledAt: expect.any(String), source: "box-office",
      by: ACCOUNTS.boxOffice.name, refund: { amount: 25 }, currency: "USD",
    });
    expect(entry(bySeller.ticketId)).toMatchObject({ source: "box-office", by: ACCOUNTS.sales.name });
    expect(entry(ordered.tickets[0]!.ticketId)).toMatchObject({ orderId: ordered.orderId, source: "box-office", by: ACCOUNTS.admin.name, refund: { amount: 25 } });
    expect(entry(eventTicket.ticketId)).toEqual({
      ticketId: eventTicket.ticketId, ticketDate: eventTicket.ticketDate, cancelledAt: expect.any(String),
      source: "event-deleted", refund: { amount: 12.5 }, currency: "USD",
    });
    expect(entry(removed.ticketId)).toMatchObject({ source: "date-removed", refund: { amount: 7.25 }, ticketDate: removedDate });
    expect(entry(byKiosk.ticketId)).toMatchObject({ source: "closure", refund: { amount: 25 } });
    for (const e of entries.filter((e) => e.source !== "box-office")) expect(e).not.toHaveProperty("by");
    // The feed's cancelledAt is the ticket's.
    const status = (await (await api(`/v1.1/tickets/${atDesk.ticketId}`)).json()) as TicketStatusJson;
    expect(entry(atDesk.ticketId)!.cancelledAt).toBe(status.cancelledAt);

    // Box office sees every account's; each sales account only what it sold.
    expect((await readAll("cancellations", since, "boxOffice")).entries).toEqual(entries);
    expect((await readAll("cancellations", since, "sales")).entries.map((e) => e.ticketId)).toEqual([
      atDesk.ticketId, bySeller.ticketId, ordered.tickets[0]!.ticketId, ordered.tickets[1]!.ticketId, eventTicket.ticketId,
    ]);
    expect((await readAll("cancellations", kioskSince, "kiosk")).entries.map((e) => e.ticketId)).toEqual([removed.ticketId, byKiosk.ticketId]);
  });

  it("shows `cancellation.by` on the ticket's status for a box-office cancellation only", async () => {
    const day = await openDay();
    const atDesk = await sold(general(day));
    const closed = await sold(general(day));
    const answer = (await (await cancel(`/tickets/${atDesk.ticketId}`, {}, { as: "boxOffice" })).json()) as TicketStatusJson;
    expect(answer.cancellation).toEqual({ source: "box-office", by: ACCOUNTS.boxOffice.name, refund: { amount: 25 } });
    expect(((await (await api(`/v1.1/tickets/${atDesk.ticketId}`, { as: "sales" })).json()) as TicketStatusJson).cancellation).toEqual(answer.cancellation);
    expect((await api(`/v1.1/museum-hours/exceptions/${day}?cancelTickets=true`, { method: "PUT", json: { closed: true } })).status).toBe(200);
    expect(((await (await api(`/v1.1/tickets/${closed.ticketId}`)).json()) as TicketStatusJson).cancellation).toEqual({ source: "closure", refund: { amount: 25 } });
  });

  it("is for admin, box-office and sales; a gate gets 403", async () => {
    await expectProblem(await api("/v1.1/cancellations", { as: "gate" }), 403);
    await expectProblem(await api("/v1.1/cancellations", { as: null }), 401);
  });
});

describe("GET /gate/revocations", () => {
  it("lists every reason, for tickets of today or later only; the cancellations feed only cancellations", async () => {
    const since = await endOf("cancellations");
    const gateSince = await endOf("gate/revocations", "gate");
    const day = await openDay();
    const upcoming = await sold(general(day));
    const past = await sold(general(await openDay()));
    const withdrawn = await sold(general(await openDay()));
    // A ticket whose day has passed, cancelled (straight in the database: the API no longer cancels it).
    await env.DB.prepare("UPDATE tickets SET ticket_date = ?1 WHERE ticket_id = ?2").bind(plusDays(TODAY, -1), past.ticketId).run();
    await env.DB.prepare("UPDATE tickets SET cancelled_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), cancel_source = 'closure', refund_cents = price_cents WHERE ticket_id = ?1")
      .bind(past.ticketId)
      .run();
    expect((await cancel(`/tickets/${upcoming.ticketId}`)).status).toBe(200);
    // A code of a withdrawn key (written by the key's withdrawal).
    await env.DB.prepare("INSERT INTO ticket_revocations (ticket_id, reason) VALUES (?1, 'key-withdrawn')").bind(withdrawn.ticketId).run();

    const revoked = await readAll("gate/revocations", gateSince, "gate");
    expect(revoked.entries).toEqual([
      { ticketId: upcoming.ticketId, ticketDate: day, revokedAt: expect.any(String) },
      { ticketId: withdrawn.ticketId, ticketDate: withdrawn.ticketDate, revokedAt: expect.any(String) },
    ]);
    expect((await readAll("gate/revocations", gateSince, "admin")).entries).toEqual(revoked.entries);
    expect((await readAll("cancellations", since, "admin")).entries.map((e) => e.ticketId)).toEqual([past.ticketId, upcoming.ticketId]);
  });

  it("is for gate and admin; sales and box-office get 403", async () => {
    await expectProblem(await api("/v1.1/gate/revocations", { as: "sales" }), 403);
    await expectProblem(await api("/v1.1/gate/revocations", { as: "boxOffice" }), 403);
  });
});

describe("the cursor", () => {
  it("without `since`, the feed from its start; `next` always present, `since` again when nothing came", async () => {
    const first = await page("cancellations", undefined, "admin");
    const again = await page("gate/revocations", undefined, "gate");
    expect(typeof first.next).toBe("string");
    expect(typeof again.next).toBe("string");
    const end = await endOf("cancellations");
    expect(await page("cancellations", end, "admin")).toEqual({ entries: [], next: end });
    // Both feeds read one log: a cursor of one is a cursor of the other.
    await page("gate/revocations", end, "gate");
    // Past the end (a log that grew less than the cursor says): nothing, the same cursor.
    const far = forged(JSON.stringify({ p: Number.MAX_SAFE_INTEGER }));
    expect(await page("cancellations", far, "admin")).toEqual({ entries: [], next: far });
  });

  const TAMPERED = {
    "garbage": "!!not-a-cursor!!",
    "empty": "",
    "base64 of no JSON": forged("hello"),
    "a bare number": "1234",
    "negative": forged('{"p":-1}'),
    "a fraction": forged('{"p":1.5}'),
    "beyond a safe integer": forged('{"p":9007199254740992}'),
    "huge": forged('{"p":1e300}'),
    "a string position": forged('{"p":"5"}'),
    "null position": forged('{"p":null}'),
    "an array": forged("[5]"),
    "null": forged("null"),
    "an extra member": forged('{"p":5,"q":1}'),
    "spaced JSON": forged('{ "p": 5 }'),
    "padded": `${forged('{"p":5}')}=`,
    "too long": "A".repeat(65),
  };

  it.each(Object.entries(TAMPERED))("refuses a tampered cursor (%s): 400 naming `since`, on both feeds", async (_, since) => {
    const query = `?since=${encodeURIComponent(since)}`;
    await expectValidationError(await api(`/v1.1/cancellations${query}`, { as: "sales" }), "query.since");
    await expectValidationError(await api(`/v1.1/gate/revocations${query}`, { as: "gate" }), "query.since");
  });
});
