// The orders feature's table (orders): every statement on it, and the read
// fragments other features may put in theirs. An order's tickets, prices and
// refunds are the tickets feature's (tickets/statements.ts).
import sql, { type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";

export type OrderRow = { order_id: string; reference: string | null; created_at: string };

/**
 * Writes an order while `guard` (an SQL condition: an Idempotency-Key's
 * claim) holds; reads whether it did. A `reference` the seller used before
 * fails the statement on the unique index orders_by_reference
 * (`isDuplicateReference`), so the batch writes nothing.
 */
export function insertOrder(db: Db, order: { orderId: string; soldBy: string; reference?: string }, guard: Sql = sql`1`): Step<boolean> {
  return step(
    db,
    sql`INSERT INTO orders (order_id, sold_by, reference) SELECT ${order.orderId}, ${order.soldBy}, ${order.reference ?? null} WHERE ${guard}`,
    (result) => read.changes(result) > 0,
  );
}

/** True when a write failed because its order's reference was used before by the same seller. */
export function isDuplicateReference(error: unknown): boolean {
  return error instanceof Error && error.message.includes("orders.sold_by, orders.reference");
}

/** An order sold by `seller` (null: by anyone; tickets/access.ts), or null. */
export function selectOrder(db: Db, orderId: string, seller: string | null): Step<OrderRow | null> {
  return step(
    db,
    sql`SELECT order_id, reference, created_at FROM orders WHERE order_id = ${orderId} AND (${seller} IS NULL OR sold_by = ${seller})`,
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
    sql`SELECT order_id, reference, created_at FROM orders
         WHERE order_id IN (${ordersWithReference(reference, seller)})
         ORDER BY created_at DESC, rowid DESC`,
    read.rows<OrderRow>(),
  );
}
