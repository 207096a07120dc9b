// Read your writes (contract: "Orders", last item): a ticket or an order read
// right after it was written is found even when the read goes to a replica
// that has not caught up; the lookup that misses is read again on the primary.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { clearD1Faults, firedD1Faults, injectD1Faults } from "../support/d1-faults";
import { api, plusDays, todayInZone } from "../support/helpers";
import { buy, createEvent, order, type OrderResponse, type PurchaseResponse } from "./fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);

afterEach(() => {
  clearD1Faults();
});

async function eventTicket(): Promise<PurchaseResponse> {
  const date = plusDays(TODAY, 3);
  const res = await buy({ ticketType: "event", eventId: await createEvent([date]), ticketDate: date, email: "visitor@example.com" });
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

describe("a lookup that misses on a replica", () => {
  it("finds a ticket's status and image on the primary", async () => {
    const ticket = await eventTicket();
    injectD1Faults({ on: "all", sql: "FROM tickets t WHERE t.ticket_id", effect: "stale-read" });
    expect((await api(`/v1.1/tickets/${ticket.ticketId}`, { as: "sales" })).status).toBe(200);
    expect(firedD1Faults()).toHaveLength(1);

    const other = await eventTicket();
    injectD1Faults({ on: "all", sql: "FROM tickets t WHERE t.ticket_id", effect: "stale-read" });
    const image = await api(`/v1.1/tickets/${other.ticketId}/qr`, { as: "sales" });
    expect(image.status).toBe(200);
    expect(image.headers.get("Content-Type")).toBe("image/png");
    expect(firedD1Faults()).toHaveLength(2);
  });

  it("finds an order on the primary", async () => {
    const date = plusDays(TODAY, 4);
    const eventId = await createEvent([date]);
    const res = await order({ email: "a@example.com", tickets: [{ ticketType: "event", eventId, ticketDate: date }] });
    expect(res.status).toBe(201);
    const { orderId } = (await res.json()) as OrderResponse;
    injectD1Faults({ on: "batch", sql: "FROM orders WHERE order_id", effect: "stale-read" });
    const read = await api(`/v1.1/orders/${orderId}`, { as: "sales" });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { orderId: string }).orderId).toBe(orderId);
    expect(firedD1Faults()).toHaveLength(1);
  });

  it("still answers 404 for a ticket the primary does not hold either", async () => {
    injectD1Faults({ on: "all", sql: "FROM tickets t WHERE t.ticket_id", effect: "stale-read" });
    expect((await api(`/v1.1/tickets/${crypto.randomUUID()}`, { as: "sales" })).status).toBe(404);
  });
});
