// A web shop gets its buyers' confirmation codes after payment (issue 37):
// every answer that gives a ticket's status carries the ticket's
// `confirmationCode`, the one the sale or the hold gave, and never the
// buyer's e-mail or phone. Through the real Worker and D1.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, testDays } from "../support/helpers";
import { buy, cancel, order, type OrderResponse, type OrderStatusJson, type PurchaseResponse, type TicketStatusJson } from "./fixtures";

const { openDay } = testDays(70);

const EMAIL = "shop.buyer+codes@example.com";
const PHONE = "+1 (555) 010-3737";

/** The answer's body, after checking its status and that it names neither the buyer's e-mail nor phone. */
async function answer<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(text).not.toContain(EMAIL);
  expect(text).not.toContain("shop.buyer");
  expect(text).not.toContain(PHONE);
  expect(text).not.toContain("010-3737");
  return JSON.parse(text) as T;
}

/** Each ticket's id and confirmation code, as an answer gives them. */
const codesOf = (tickets: { ticketId: string; confirmationCode?: string }[]) => tickets.map((t) => [t.ticketId, t.confirmationCode]);

describe("confirmationCode on every ticket status", () => {
  it("a held order's codes: its confirmation, GET /orders/{id}, GET /orders?reference=, each ticket and its look-up", async () => {
    const date = await openDay();
    const reference = `shop-${crypto.randomUUID()}`;
    const held = await answer<OrderResponse>(
      await order({ holdMinutes: 15, reference, tickets: [{ ticketType: "general", ticketDate: date }, { ticketType: "general", ticketDate: date }] }),
      201,
    );
    const codes = codesOf(held.tickets);
    expect(codes.every(([, code]) => /^ticket-general-[a-z0-9]{6}-[a-z0-9]{5}$/.test(code!))).toBe(true);
    // While held: the confirmation code is no admission code (the ticket has no image yet), so its status shows it.
    expect(codesOf((await answer<OrderStatusJson>(await api(`/v1.1/orders/${held.orderId}`, { as: "sales" }))).tickets)).toEqual(codes);

    const confirmed = await answer<OrderStatusJson>(
      await api(`/v1.1/orders/${held.orderId}/confirmation`, { method: "POST", as: "sales", json: { email: EMAIL, phone: PHONE } }),
    );
    expect(confirmed.status).toBe("confirmed");
    expect(codesOf(confirmed.tickets)).toEqual(codes);

    for (const as of ["sales", "boxOffice", "admin"] as const) {
      const read = await answer<OrderStatusJson>(await api(`/v1.1/orders/${held.orderId}`, { as }));
      expect(codesOf(read.tickets)).toEqual(codes);
    }
    const byReference = await answer<OrderStatusJson[]>(await api(`/v1.1/orders?reference=${encodeURIComponent(reference)}`, { as: "sales" }));
    expect(byReference.map((found) => codesOf(found.tickets))).toEqual([codes]);

    for (const [ticketId, code] of codes) {
      const status = await answer<TicketStatusJson>(await api(`/v1.1/tickets/${ticketId}`, { as: "sales" }));
      expect(status).toMatchObject({ ticketId, confirmationCode: code, status: "valid" });
      const lookedUp = await answer<TicketStatusJson>(await api(`/v1.1/tickets?confirmationCode=${code!.toUpperCase()}`, { as: "boxOffice" }));
      expect(lookedUp).toEqual({ ...status });
    }
  });

  it("a ticket bought alone, and the answers of a ticket's and an order's cancellation", async () => {
    const date = await openDay();
    const bought = await answer<PurchaseResponse>(await buy({ ticketType: "general", ticketDate: date, email: EMAIL, phone: PHONE }), 201);
    const status = await answer<TicketStatusJson>(await api(`/v1.1/tickets/${bought.ticketId}`, { as: "admin" }));
    expect(status.confirmationCode).toBe(bought.confirmationCode);
    const cancelled = await answer<TicketStatusJson>(await cancel(`/tickets/${bought.ticketId}`, { reason: "Visitor ill" }));
    expect(cancelled).toMatchObject({ status: "cancelled", confirmationCode: bought.confirmationCode });

    const sold = await answer<OrderResponse>(
      await order({ email: EMAIL, phone: PHONE, tickets: [{ ticketType: "general", ticketDate: date }, { ticketType: "general", ticketDate: date }] }),
      201,
    );
    const orderCancelled = await answer<OrderStatusJson>(await cancel(`/orders/${sold.orderId}`, {}, { as: "boxOffice" }));
    expect(orderCancelled.tickets.map((t) => t.status)).toEqual(["cancelled", "cancelled"]);
    expect(codesOf(orderCancelled.tickets)).toEqual(codesOf(sold.tickets));
  });

  it("a hold released or run out still shows its tickets' codes (they are no admission codes)", async () => {
    const date = await openDay();
    const held = await answer<OrderResponse>(await order({ holdMinutes: 5, tickets: [{ ticketType: "general", ticketDate: date }] }), 201);
    const released = await answer<OrderStatusJson>(await cancel(`/orders/${held.orderId}`));
    expect(released.status).toBe("released");
    expect(codesOf(released.tickets)).toEqual(codesOf(held.tickets));

    const ranOut = await answer<OrderResponse>(await order({ holdMinutes: 5, tickets: [{ ticketType: "general", ticketDate: date }] }), 201);
    // The database's clock passing expiresAt.
    await env.DB.prepare("UPDATE tickets SET hold_until = '2000-01-01T00:00:00.000Z' WHERE order_id = ?1").bind(ranOut.orderId).run();
    const expired = await answer<OrderStatusJson>(await api(`/v1.1/orders/${ranOut.orderId}`, { as: "sales" }));
    expect(expired.status).toBe("expired");
    expect(expired.tickets.map((t) => t.status)).toEqual(["cancelled"]);
    expect(codesOf(expired.tickets)).toEqual(codesOf(ranOut.tickets));
  });
});
