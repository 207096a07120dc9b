// An order's status: one batch over the order and its tickets.
import type { Principal } from "../env";
import { Batch, type Db, runStep } from "../platform/batch";
import type { MuseumNow } from "../platform/dates";
import { readFresh, type Sessions } from "../platform/fresh-read";
import { totalOf } from "../platform/money";
import { sellerScope } from "../tickets/access";
import { type OrderTicketRow, selectOrderTickets } from "../tickets/statements/holds";
import { type OrderTicketRecordRow, selectOrderTicketRecords, setOrderBuyerContact } from "../tickets/statements/orders";
import { ticketStatusOf } from "../tickets/status";
import { validationProblem } from "../http/errors";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { stillOnSale } from "./conditions";
import type { OrderStatus } from "./schemas";
import {
  type HoldStateRow,
  isDuplicateReference,
  type OrderDetails,
  ordersSelected,
  type OrderSelector,
  ordersWithReference,
  type OrderRow,
  type RecordedOrderStatus,
  selectOrder,
  selectOrders,
  selectOrdersByReference,
  updateOrderDetails,
} from "./statements";

const LACKS_EMAIL = { path: "email", message: "Required: this held order has no buyer's e-mail yet." };

/** The 400 of a held order sold without the buyer's e-mail when none of its tickets has one yet. */
export function heldOrderLacksEmail(): ProblemError {
  return validationProblem([LACKS_EMAIL]);
}

/** True for `heldOrderLacksEmail`'s problem. */
export function isHeldOrderLackingEmail(error: unknown): boolean {
  return (
    error instanceof ProblemError &&
    error.problem.type === PROBLEM_TYPES.validation &&
    error.problem.errors?.some((e) => e.path === LACKS_EMAIL.path && e.message === LACKS_EMAIL.message) === true
  );
}

export function orderNotFound(orderId: string): ProblemError {
  return new ProblemError(404, { detail: `No order with id ${orderId}.` });
}

/**
 * An order's state now: as recorded (a change that releases a held order
 * records it, the trigger held_order_released of migrations/0024), but a held order is expired once its hold
 * ran out (`holdLive`: by the database's clock, at the read).
 */
export function orderStateFrom(recorded: RecordedOrderStatus, holdLive: boolean): OrderStatus["status"] {
  return recorded !== "held" ? recorded : holdLive ? "held" : "expired";
}

function orderReleased(orderId: string): ProblemError {
  return new ProblemError(409, {
    type: PROBLEM_TYPES.orderReleased,
    title: "Order released",
    detail: "This order's hold was released; nothing of it can be sold any more. Place a new order.",
    extensions: { orderId },
  });
}

/**
 * The order and its state before a confirmation or an extension. Neither
 * applies to an order that is not there (404) or was released (409).
 */
export function heldOrderBefore({ order, live }: HoldStateRow, orderId: string): { order: OrderRow; state: OrderStatus["status"] } {
  if (order === null) throw orderNotFound(orderId);
  const state = orderStateFrom(order.status, live);
  if (state === "released") throw orderReleased(orderId);
  return { order, state };
}

/** An order's state and, held or expired, when its hold ends: as its tickets were read with it (`selectOrderTickets`). */
function orderStateOf(order: OrderRow, tickets: OrderTicketRow[]): Pick<OrderStatus, "status" | "expiresAt"> {
  const hold = tickets[0];
  const status = orderStateFrom(order.status, hold?.order_hold_live === 1);
  const expiresAt = order.status === "held" ? hold?.order_hold_end : null;
  return { status, ...(expiresAt == null ? {} : { expiresAt }) };
}

export function orderStatusOf(order: OrderRow, tickets: OrderTicketRow[], currency: string): OrderStatus {
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

/**
 * An order as recorded, its tickets (in the order of its lines), the
 * museum's plan of each of their days, the buyer's contact (for the
 * seller's own answers about its sale only), and which of its tickets could
 * still be sold now (`stillOnSale`: while the box office may take them back).
 */
export type OrderRecord = {
  order: OrderRow;
  tickets: OrderTicketRow[];
  dayPlans: Pick<OrderTicketRecordRow, "ticket_date" | "entry_time" | "plan" | "slot_end">[];
  buyer: { email: string | null; phone: string | null };
  stillOnSale: string[];
};

/**
 * Adds the reads of the records of the orders `selector` names, sold by
 * `seller` (null: by anyone), at `now`, to a batch; the records, oldest
 * first, once it has run.
 */
export function addOrderRecordReads(batch: Batch, selector: OrderSelector, seller: string | null, now: MuseumNow): () => OrderRecord[] {
  const { db } = batch;
  const ids = ordersSelected(selector, seller);
  const orders = batch.add(selectOrders(db, selector, seller));
  const tickets = batch.add(selectOrderTicketRecords(db, ids, seller, (ticket) => stillOnSale(ticket, now)));
  return () =>
    orders.value.map((order) => {
      const rows = tickets.value.filter((ticket) => ticket.order_id === order.order_id);
      return {
        order,
        tickets: rows,
        dayPlans: rows.map((row) => ({ ticket_date: row.ticket_date, entry_time: row.entry_time, plan: row.plan, slot_end: row.slot_end })),
        buyer: { email: rows[0]?.order_buyer_email ?? null, phone: rows[0]?.order_buyer_phone ?? null },
        stillOnSale: rows.filter((row) => row.matches === 1).map((row) => row.ticket_id),
      };
    });
}

/** The records of the orders `selector` names that `principal` may see, oldest first, at `now`. One round trip. */
export async function orderRecords(db: Db, selector: OrderSelector, principal: Principal, now: MuseumNow): Promise<OrderRecord[]> {
  const batch = new Batch(db);
  const records = addOrderRecordReads(batch, selector, sellerScope(principal), now);
  await batch.run();
  return records();
}

/**
 * Records the seller's changes of an order's details (reference, the
 * buyer's details, notes) and, when given, the buyer's new e-mail (and
 * phone) on its tickets, in one batch, while the order is held or
 * confirmed; reads its record after. Null: no such order of `principal`'s
 * to change. A reference used before is `409 duplicate-reference`.
 */
export async function changeOrderDetails(
  sessions: Sessions,
  orderId: string,
  principal: Principal,
  change: { details: OrderDetails; email?: string; phone?: string },
  now: MuseumNow,
): Promise<OrderRecord | null> {
  const { db } = sessions;
  const batch = new Batch(db);
  const updated = batch.add(updateOrderDetails(db, orderId, principal.name, change.details));
  if (change.email !== undefined) batch.add(setOrderBuyerContact(db, orderId, principal.name, { email: change.email, phone: change.phone }));
  const records = addOrderRecordReads(batch, { orderId }, principal.name, now);
  try {
    await batch.run();
  } catch (error) {
    const { reference } = change.details;
    if (typeof reference === "string" && isDuplicateReference(error)) throw await duplicateReference(sessions, principal.name, reference);
    throw error;
  }
  return updated.value ? (records()[0] ?? null) : null;
}
