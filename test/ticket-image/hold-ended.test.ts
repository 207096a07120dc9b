// A ticket whose hold ended was never sold and never gets a code (contract:
// "Holds", the /hold-ended paragraph): its image is 409 /hold-ended however
// the hold ended, for every role that may fetch images, until a late
// confirmation sells it; no pre-render, cache, feed or gate gives it a code.
// Through the real Worker and D1 (a hold runs out by the database's clock:
// these tests move hold_until into the past through env.DB).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { verifyTicketCode } from "../../src/ticket-image";
import { type AccountKey, api, expectProblem, plusDays, testDays } from "../support/helpers";
import { decodeQrPng } from "../support/qr-decode";
import { countRenders } from "../support/render-count";
import { ticketCodeOf, workerCodeKeys } from "../support/ticket-codes";
import { setTestVars, settleWaitUntil } from "../support/worker";
import { cancel, createEvent, order, type OrderResponse } from "../tickets/fixtures";
import { resultsOf, scanOf, upload } from "../admission/offline-helpers";

const { freshDay, openDay } = testDays(70);

afterEach(() => setTestVars());

/** Holds an order of `lines` for the web shop (test-sales). */
async function hold(lines: Record<string, unknown>[]): Promise<OrderResponse> {
  const res = await order({ holdMinutes: 15, tickets: lines }, { as: "sales" });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as OrderResponse;
}

const general = (ticketDate: string) => ({ ticketType: "general", ticketDate });

/** Moves the order's hold into the past, as the database's clock passing expiresAt would. */
async function runOut(orderId: string, recorded: boolean) {
  const ended = "'2000-01-01T00:00:00.000Z'";
  // Recorded: as a tidy-up would record it (the contract allows one; it changes no answer).
  const record = recorded ? `, cancelled_at = ${ended}, cancel_source = 'hold-expired', refund_cents = 0` : "";
  await env.DB.prepare(`UPDATE tickets SET hold_until = ${ended}${record} WHERE order_id = ?1 AND hold_until IS NOT NULL`).bind(orderId).run();
}

function image(ticketId: string, as: AccountKey = "sales", headers: Record<string, string> = {}) {
  return api(`/v1.1/tickets/${ticketId}/qr`, { as, headers });
}

async function expectHoldEnded(res: Response, ticketId: string) {
  const problem = await expectProblem(res, 409);
  expect(problem).toMatchObject({ type: "/problems/hold-ended", ticketId });
  expect(res.headers.get("ETag")).toBeNull();
}

/** The ticket ids of a feed's first page (`cancellations` for admin, `gate/revocations` for the gate). */
async function feedTicketIds(feed: "cancellations" | "gate/revocations"): Promise<string[]> {
  const res = await api(`/v1.1/${feed}`, { as: feed === "cancellations" ? "admin" : "gate" });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { cancellations?: { ticketId: string }[]; revocations?: { ticketId: string }[] };
  return (body.cancellations ?? body.revocations ?? []).map((entry) => entry.ticketId);
}

/** A held order, and how its hold ends: the ticket status's `cancellation.source` once it has. */
type Ending = { how: string; source: string; hold: () => Promise<OrderResponse>; end: (held: OrderResponse) => Promise<void> };

const ENDINGS: Ending[] = [
  {
    how: "released: the order's cancellation",
    source: "hold-released",
    hold: async () => hold([general(await openDay())]),
    end: async (held) => expect((await cancel(`/orders/${held.orderId}`)).status).toBe(200),
  },
  {
    how: "ran out by the database's clock, nothing recorded",
    source: "hold-expired",
    hold: async () => hold([general(await openDay())]),
    end: (held) => runOut(held.orderId, false),
  },
  {
    how: "ran out, recorded",
    source: "hold-expired",
    hold: async () => hold([general(await openDay())]),
    end: (held) => runOut(held.orderId, true),
  },
  {
    how: "released by a closure with cancelTickets",
    source: "closure",
    hold: async () => hold([general(await openDay())]),
    end: async (held) => {
      const date = held.tickets[0]!.ticketDate;
      const closed = await api(`/v1.1/museum-hours/exceptions/${date}?cancelTickets=true`, { method: "PUT", json: { closed: true } });
      expect(closed.status).toBeLessThan(300);
    },
  },
  {
    how: "released by its event's deletion",
    source: "event-deleted",
    hold: async () => {
      const date = freshDay();
      return hold([{ ticketType: "event", eventId: await createEvent([date]), ticketDate: date }]);
    },
    end: async (held) => expect((await api(`/v1.1/special-events/${held.tickets[0]!.eventId}`, { method: "DELETE" })).status).toBe(204),
  },
  {
    how: "released by its date's removal from the event",
    source: "date-removed",
    hold: async () => {
      const date = freshDay();
      return hold([{ ticketType: "event", eventId: await createEvent([date, plusDays(date, 1)]), ticketDate: date }]);
    },
    end: async (held) => {
      const [ticket] = held.tickets;
      const kept = { dates: [plusDays(ticket!.ticketDate, 1)] };
      const changed = await api(`/v1.1/special-events/${ticket!.eventId}?cancelTickets=true`, { method: "PATCH", json: kept });
      expect(changed.status, await changed.clone().text()).toBe(200);
    },
  },
];

describe("GET /tickets/{ticketId}/qr of a ticket whose hold ended", () => {
  it.each(ENDINGS)("$how: 409 /hold-ended for admin, box-office and its seller, 404 for another shop, 403 for a gate; nothing drawn, no feed, no admission", async ({ source, hold, end }) => {
    const held = await hold();
    const ticketId = held.tickets[0]!.ticketId;
    expect((await expectProblem(await image(ticketId), 409)).type).toBe("/problems/ticket-held");
    await end(held);
    const status = (await (await api(`/v1.1/tickets/${ticketId}`)).json()) as { status: string; cancellation?: { source: string } };
    expect(status).toMatchObject({ status: "cancelled", cancellation: { source } });

    const renders = countRenders();
    for (const as of ["admin", "boxOffice", "sales"] as const) {
      await expectHoldEnded(await image(ticketId, as), ticketId);
      // Read again within the isolate's memory time, with a bookmark, or revalidating: the same.
      await expectHoldEnded(await image(ticketId, as), ticketId);
      await expectHoldEnded(await image(ticketId, as, { "x-d1-bookmark": "first-primary" }), ticketId);
      await expectHoldEnded(await image(ticketId, as, { "If-None-Match": "*" }), ticketId);
    }
    // Another shop: exactly as an unknown ticket.
    const unknown = await expectProblem(await image(crypto.randomUUID(), "kiosk"), 404);
    const other = await expectProblem(await image(ticketId, "kiosk"), 404);
    expect(other.type).toBe(unknown.type);
    await expectProblem(await image(ticketId, "gate"), 403);
    expect(renders.renders).toBe(0);

    // It had no code, so no feed revokes one.
    expect(await feedTicketIds("gate/revocations")).not.toContain(ticketId);
    expect(await feedTicketIds("cancellations")).not.toContain(ticketId);
    // A code naming it (as an image made before this rule would carry) admits nothing, online or uploaded.
    const code = await ticketCodeOf(ticketId);
    const scanned = await expectProblem(await api("/v1.1/admissions", { method: "POST", as: "gate", json: { code } }), 422);
    expect(scanned.type).toBe("/problems/invalid-ticket-code");
    const [uploaded] = await resultsOf(await upload([scanOf(code)]));
    expect(uploaded!.outcome).toBe("invalid-ticket-code");
  });

  it.each([false, true])("a late confirmation sells a hold that ran out (recorded: %s): its image then carries a genuine code", async (recorded) => {
    const held = await hold([general(await openDay()), general(await openDay())]);
    await runOut(held.orderId, recorded);
    for (const ticket of held.tickets) await expectHoldEnded(await image(ticket.ticketId), ticket.ticketId);

    const confirmed = await api(`/v1.1/orders/${held.orderId}/confirmation`, { method: "POST", as: "sales", json: { email: "late@example.com" } });
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    expect(await confirmed.json()).toMatchObject({ status: "confirmed", lateConfirmation: true });
    for (const ticket of held.tickets) {
      const res = await image(ticket.ticketId);
      expect(res.status).toBe(200);
      const code = decodeQrPng(new Uint8Array(await res.arrayBuffer()))?.data;
      expect(await verifyTicketCode(code!, workerCodeKeys())).toMatchObject({ tid: ticket.ticketId });
    }
  });

  it("a released order stays unsold: its confirmation is 409 order-released, its images 409 /hold-ended", async () => {
    const held = await hold([general(await openDay())]);
    expect((await cancel(`/orders/${held.orderId}`)).status).toBe(200);
    const refused = await expectProblem(
      await api(`/v1.1/orders/${held.orderId}/confirmation`, { method: "POST", as: "sales", json: { email: "late@example.com" } }),
      409,
    );
    expect(refused.type).toBe("/problems/order-released");
    await expectHoldEnded(await image(held.tickets[0]!.ticketId), held.tickets[0]!.ticketId);
  });
});

describe('with PRERENDER_TICKET_IMAGES = "true"', () => {
  it("a held order is not pre-rendered: released, its images are 409 /hold-ended and nothing was drawn", async () => {
    setTestVars({ PRERENDER_TICKET_IMAGES: "true" });
    const renders = countRenders();
    const held = await hold([general(await openDay()), general(await openDay())]);
    await settleWaitUntil();
    expect(renders.renders).toBe(0);
    expect((await cancel(`/orders/${held.orderId}`)).status).toBe(200);
    for (const ticket of held.tickets) await expectHoldEnded(await image(ticket.ticketId), ticket.ticketId);
    await settleWaitUntil();
    expect(renders.renders).toBe(0);
  });

  it("a release racing a confirmation, sales pre-rendered and image fetches: no image of a ticket left unsold, ever", { timeout: 60_000 }, async () => {
    setTestVars({ PRERENDER_TICKET_IMAGES: "true" });
    const date = await openDay();
    const renders = countRenders();
    for (let round = 0; round < 6; round++) {
      const rendersBefore = renders.renders;
      const held = await hold([general(date), general(date)]);
      const ids = held.tickets.map((ticket) => ticket.ticketId);
      const fetches = () => ids.map((id) => image(id));
      const [confirmation, release, sale, ...images] = await Promise.all([
        api(`/v1.1/orders/${held.orderId}/confirmation`, { method: "POST", as: "sales", json: { email: "race@example.com" } }),
        cancel(`/orders/${held.orderId}`),
        // A sale in the same isolate, its image pre-rendered alongside.
        order({ email: "other@example.com", tickets: [general(date)] }, { as: "sales" }),
        ...fetches(),
        ...fetches(),
      ]);
      expect(release.status).toBe(200);
      expect(sale.status).toBe(201);
      await settleWaitUntil();
      const after = await Promise.all(fetches());
      if (confirmation.status === 200) {
        // Sold first: the cancellation then refunded sold tickets, whose codes are revoked.
        expect(await release.json()).toMatchObject({ status: "confirmed", refund: { amount: 50 } });
        for (const res of after) expect(res.status).toBe(200);
        const revoked = await feedTicketIds("gate/revocations");
        for (const id of ids) expect(revoked).toContain(id);
      } else {
        expect((await expectProblem(confirmation, 409)).type).toBe("/problems/order-released");
        for (const res of images) expect(res.status).toBe(409);
        for (const [i, res] of after.entries()) await expectHoldEnded(res, ids[i]!);
        // The one image drawn is the other sale's pre-render.
        expect(renders.renders - rendersBefore).toBe(1);
      }
      for (const res of [...images, ...after]) if (!res.bodyUsed) await res.body?.cancel();
    }
  });
});
