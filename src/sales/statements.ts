// The orders feature's table (orders): every statement on it, and the read
// fragments other features may put in theirs. An order's tickets, prices and
// refunds are the tickets feature's (tickets/statements/).
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import { sqlShiftedSeconds } from "../platform/sql";
import { orderHoldLive, orderLacksEmail } from "../tickets/statements/holds";

/** What the table records of an order's state; `expired` is no state of its own (tickets' hold_until decides it). */
export type RecordedOrderStatus = "held" | "confirmed" | "released";

export type OrderRow = { order_id: string; reference: string | null; created_at: string; status: RecordedOrderStatus };

/**
 * Writes an order (held, or confirmed: sold at once) while `guard` (an SQL
 * condition: an Idempotency-Key's claim) holds; reads whether it did. A
 * `reference` the seller used before fails the statement on the unique index
 * orders_by_reference (`isDuplicateReference`), so the batch writes nothing.
 */
export function insertOrder(
  db: Db,
  order: { orderId: string; soldBy: string; held: boolean; reference?: string },
  guard: Sql = sql`1`,
): Step<boolean> {
  const status: RecordedOrderStatus = order.held ? "held" : "confirmed";
  return step(
    db,
    sql`INSERT INTO orders (order_id, sold_by, status, reference)
        SELECT ${order.orderId}, ${order.soldBy}, ${status}, ${order.reference ?? null} WHERE ${guard}`,
    (result) => read.changes(result) > 0,
  );
}

/** True when a write failed because its order's reference was used before by the same seller. */
export function isDuplicateReference(error: unknown): boolean {
  return error instanceof Error && error.message.includes("orders.sold_by, orders.reference");
}

/** True while the order `orderId`, sold by `seller` (null: by anyone), is recorded as `status`. */
export function orderRecordedAs(orderId: string, status: RecordedOrderStatus, seller: string | null): Sql {
  return sql`EXISTS (SELECT 1 FROM orders WHERE order_id = ${orderId} AND status = ${status} AND (${seller} IS NULL OR sold_by = ${seller}))`;
}

/** The latest a hold of the order `orderId` may end (an SQL timestamp): `minutes` after the order was made. */
export function orderHoldLimit(orderId: string, minutes: number): Sql {
  return sql`(SELECT ${sqlShiftedSeconds(raw("created_at"), minutes * 60)} FROM orders WHERE order_id = ${orderId})`;
}

/** Records a held order as `status` while `allowed` (an SQL condition) holds; reads whether it did. */
export function settleHeldOrder(db: Db, orderId: string, status: "confirmed" | "released", allowed: Sql): Step<boolean> {
  return step(
    db,
    sql`UPDATE orders SET status = ${status} WHERE order_id = ${orderId} AND status = 'held' AND ${allowed}`,
    (result) => read.changes(result) > 0,
  );
}

/**
 * What a hold's confirmation or extension decides by, read before it writes:
 * the order (null: none, or not `seller`'s) and its tickets' hold.
 */
export type HoldStateRow = { order: OrderRow | null; live: boolean; lacksEmail: boolean };

/**
 * The order `orderId` sold by `seller` (null: by anyone) and its held
 * tickets' state, by the same conditions a confirmation's write requires
 * (tickets/statements/): its hold live, a ticket without the buyer's
 * e-mail. One row.
 */
export function selectHoldState(db: Db, orderId: string, seller: string | null): Step<HoldStateRow> {
  return step(
    db,
    sql`SELECT o.order_id, o.reference, o.created_at, o.status,
               ${orderHoldLive(orderId)} AS live, ${orderLacksEmail(orderId)} AS lacks_email
          FROM (SELECT 1) LEFT JOIN orders o ON o.order_id = ${orderId} AND (${seller} IS NULL OR o.sold_by = ${seller})`,
    (result) => {
      const row = read.first<OrderRow & { live: number; lacks_email: number }>()(result)!;
      const { live, lacks_email, ...order } = row;
      return { order: order.order_id === null ? null : order, live: live === 1, lacksEmail: lacks_email === 1 };
    },
  );
}

/** An order sold by `seller` (null: by anyone; tickets/access.ts), or null. */
export function selectOrder(db: Db, orderId: string, seller: string | null): Step<OrderRow | null> {
  return step(
    db,
    sql`SELECT order_id, reference, created_at, status FROM orders WHERE order_id = ${orderId} AND (${seller} IS NULL OR sold_by = ${seller})`,
    read.first<OrderRow>(),
  );
}

/**
 * The ids of the orders with `reference` sold by `seller` (null: by anyone):
 * an SQL query, for the reads of their tickets. A seller's is one lookup in
 * orders_by_reference; every seller's reads the orders (no index leads with
 * the reference).
 */
export function ordersWithReference(reference: string, seller: string | null): Sql {
  return seller === null
    ? sql`SELECT order_id FROM orders WHERE reference = ${reference}`
    : sql`SELECT order_id FROM orders WHERE sold_by = ${seller} AND reference = ${reference}`;
}

/** The orders with `reference` sold by `seller` (null: by anyone), newest first. */
export function selectOrdersByReference(db: Db, reference: string, seller: string | null): Step<OrderRow[]> {
  return step(
    db,
    sql`SELECT order_id, reference, created_at, status FROM orders
         WHERE order_id IN (${ordersWithReference(reference, seller)})
         ORDER BY created_at DESC, rowid DESC`,
    read.rows<OrderRow>(),
  );
}
