// An order's status: one batch over the order and its tickets.
import type { Principal } from "../env";
import { ProblemError } from "../http/problem";
import { Batch, type Db } from "../platform/batch";
import { totalOf } from "../platform/money";
import { sellerScope } from "../tickets/access";
import { type TicketRow, selectOrderTickets } from "../tickets/statements";
import { isHeld, ticketStatusOf } from "../tickets/status";
import type { OrderStatus } from "./schemas";
import { type OrderRow, selectOrder } from "./statements";

export function orderNotFound(orderId: string): ProblemError {
  return new ProblemError(404, { detail: `No order with id ${orderId}.` });
}

/**
 * An order's state now: as recorded, but a held order is released when a
 * change released its tickets (tickets/statements.ts `cancelTickets`), and
 * expired once its hold ran out (the database's clock, at the read).
 */
export function orderStateOf(order: OrderRow, tickets: TicketRow[]): Pick<OrderStatus, "status" | "expiresAt"> {
  if (order.status !== "held") return { status: order.status };
  if (tickets.some((t) => t.hold_until !== null && t.cancelled_at !== null && t.cancel_source !== "hold-expired")) {
    return { status: "released" };
  }
  const expiresAt = tickets[0]?.hold_until ?? undefined;
  return { status: tickets.some(isHeld) ? "held" : "expired", ...(expiresAt === undefined ? {} : { expiresAt }) };
}

export function orderStatusOf(order: OrderRow, tickets: TicketRow[], currency: string): OrderStatus {
  return {
    orderId: order.order_id,
    ...orderStateOf(order, tickets),
    createdAt: order.created_at,
    totalPrice: totalOf(tickets.map((ticket) => ticket.price_cents)),
    currency,
    tickets: tickets.map((ticket) => ticketStatusOf(ticket, currency)),
  };
}

/** Adds the reads of an order and its tickets, sold by `seller` (null: by anyone), to a batch. */
export function addOrderReads(batch: Batch, orderId: string, seller: string | null) {
  return {
    order: batch.add(selectOrder(batch.db, orderId, seller)),
    tickets: batch.add(selectOrderTickets(batch.db, orderId, seller)),
  };
}

/**
 * An order's status, or null for an order that is unknown or not
 * `principal`'s to see (tickets/access.ts). One round trip.
 */
export async function orderStatus(db: Db, orderId: string, principal: Principal, currency: string): Promise<OrderStatus | null> {
  const batch = new Batch(db);
  const { order, tickets } = addOrderReads(batch, orderId, sellerScope(principal));
  await batch.run();
  return order.value && orderStatusOf(order.value, tickets.value, currency);
}
