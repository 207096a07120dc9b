// An order's status: one batch over the order and its tickets.
import type { Principal } from "../env";
import { Batch, type Db, runStep } from "../platform/batch";
import { readFresh, type Sessions } from "../platform/fresh-read";
import { totalOf } from "../platform/money";
import { sellerScope } from "../tickets/access";
import { type TicketRow, selectOrderTickets } from "../tickets/statements/rows";
import { isHeld, ticketStatusOf } from "../tickets/status";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import type { OrderStatus } from "./schemas";
import { ordersWithReference, type OrderRow, type RecordedOrderStatus, selectOrder, selectOrdersByReference } from "./statements";

export function orderNotFound(orderId: string): ProblemError {
  return new ProblemError(404, { detail: `No order with id ${orderId}.` });
}

/**
 * An order's state now: as recorded (a change that releases a held order
 * records it, migrations/0019), but a held order is expired once its hold
 * ran out (`holdLive`: by the database's clock, at the read).
 */
export function orderStateFrom(recorded: RecordedOrderStatus, holdLive: boolean): OrderStatus["status"] {
  return recorded !== "held" ? recorded : holdLive ? "held" : "expired";
}

function orderStateOf(order: OrderRow, tickets: TicketRow[]): Pick<OrderStatus, "status" | "expiresAt"> {
  const status = orderStateFrom(order.status, tickets.some(isHeld));
  const expiresAt = order.status === "held" ? tickets[0]?.hold_until : null;
  return { status, ...(expiresAt == null ? {} : { expiresAt }) };
}

export function orderStatusOf(order: OrderRow, tickets: TicketRow[], currency: string): OrderStatus {
  return {
    orderId: order.order_id,
    ...orderStateOf(order, tickets),
    ...(order.reference === null ? {} : { reference: order.reference }),
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

/**
 * The orders with `reference` that `principal` may see (sales: its own, so
 * at most one), newest first, each with its tickets' status. One round trip.
 */
export async function ordersByReference(db: Db, reference: string, principal: Principal, currency: string): Promise<OrderStatus[]> {
  const seller = sellerScope(principal);
  const batch = new Batch(db);
  const orders = batch.add(selectOrdersByReference(db, reference, seller));
  const tickets = batch.add(selectOrderTickets(db, ordersWithReference(reference, seller), seller));
  await batch.run();
  return orders.value.map((order) =>
    orderStatusOf(order, tickets.value.filter((ticket) => ticket.order_id === order.order_id), currency),
  );
}

/**
 * The 409 of an order whose reference its seller used before, naming that
 * order: read after the refused write, again on the primary when the
 * session's replica does not have it yet.
 */
export async function duplicateReference(sessions: Sessions, soldBy: string, reference: string): Promise<ProblemError> {
  const existing = await readFresh(sessions, async (db) => (await runStep(selectOrdersByReference(db, reference, soldBy)))[0] ?? null);
  // Orders are never deleted: the one the unique index found is there.
  if (!existing) throw new Error("The order holding a duplicate reference is missing");
  return new ProblemError(409, {
    type: PROBLEM_TYPES.duplicateReference,
    title: "Duplicate reference",
    detail: "This account already has an order with this reference; nothing was sold.",
    extensions: { orderId: existing.order_id },
  });
}
