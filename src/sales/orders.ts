// An order's status: one batch over the order and its tickets.
// An order's status: one batch over the order and its tickets.
import type { Principal } from "../env";
import { ProblemError } from "../http/problem";
import { Batch, type Db } from "../platform/batch";
import { totalOf } from "../platform/money";
import { sellerScope } from "../tickets/access";
import { type TicketRow, selectOrderTickets } from "../tickets/statements";
import { ticketStatusOf } from "../tickets/status";
import type { OrderStatus } from "./schemas";
import { type OrderRow, selectOrder } from "./statements";

export function orderNotFound(orderId: string): ProblemError {
  return new ProblemError(404, { detail: `No order with id ${orderId}.` });
}

export function orderStatusOf(order: OrderRow, tickets: TicketRow[], currency: string): OrderStatus {
  return {
    orderId: order.order_id,
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
