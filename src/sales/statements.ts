// The orders feature's table (orders): every statement on it, and the read
// fragments other features may put in theirs. An order's tickets, prices and
// refunds are the tickets feature's (tickets/statements.ts).
import sql, { type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";

export type OrderRow = { order_id: string; created_at: string };

/** Writes an order while `guard` (an SQL condition: an Idempotency-Key's claim) holds; reads whether it did. */
export function insertOrder(db: Db, order: { orderId: string; soldBy: string }, guard: Sql = sql`1`): Step<boolean> {
  return step(
    db,
    sql`INSERT INTO orders (order_id, sold_by) SELECT ${order.orderId}, ${order.soldBy} WHERE ${guard}`,
    (result) => read.changes(result) > 0,
  );
}

/** True once the order `orderId` is written. */
function orderExists(orderId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM orders WHERE order_id = ${orderId})`;
}

/** An order sold by `seller` (null: by anyone; tickets/access.ts), or null. */
export function selectOrder(db: Db, orderId: string, seller: string | null): Step<OrderRow | null> {
  return step(
    db,
    sql`SELECT order_id, created_at FROM orders WHERE order_id = ${orderId} AND (${seller} IS NULL OR sold_by = ${seller})`,
    read.first<OrderRow>(),
  );
}
