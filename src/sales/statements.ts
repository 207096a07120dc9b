// The orders feature's table (orders): every statement on it, and the read
// fragments other features may put in theirs. An order's tickets, prices and
// refunds are the tickets feature's (tickets/statements/).
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW, sqlShiftedSeconds } from "../platform/sql";
import { orderHoldLive, orderLacksEmail } from "../tickets/statements/holds";
import { ordersWithTicketsIn } from "../tickets/statements/orders";

/** What the table records of an order's state; `expired` is no state of its own (tickets' hold_until decides it). */
export type RecordedOrderStatus = "held" | "confirmed" | "released";

/**
 * What a seller may record of the buyer beyond the e-mail and phone the
 * tickets carry (a reseller's contact: names, country, locales, notes).
 */
export type BuyerDetails = {
  fullName?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  country?: string | null;
  postalCode?: string | null;
  locales?: string[];
  notes?: string | null;
};

/** What a seller records on an order besides its lines: its reference, the buyer's details, its notes. */
export type OrderDetails = { reference?: string | null; buyer?: BuyerDetails; notes?: string | null };

export type OrderRow = {
  order_id: string;
  reference: string | null;
  created_at: string;
  status: RecordedOrderStatus;
  /** The order's own code (null: sold before orders had one). */
  confirmation_code: string | null;
  /** `BuyerDetails` as JSON. */
  buyer_details: string | null;
  notes: string | null;
  confirmed_at: string | null;
  updated_at: string | null;
};

const ORDER_COLUMNS = sql`order_id, reference, created_at, status, confirmation_code, buyer_details, notes, confirmed_at, updated_at`;

/** The buyer's details as stored (JSON), or null. */
function buyerJson(buyer: BuyerDetails | undefined): string | null {
  return buyer === undefined ? null : JSON.stringify(buyer);
}

/** An order's buyer details as recorded. */
export function buyerDetailsOf(order: OrderRow): BuyerDetails {
  return order.buyer_details === null ? {} : (JSON.parse(order.buyer_details) as BuyerDetails);
}

/** A new order: who sells it, whether it is held, its code, and what the seller records on it. */
export type NewOrder = OrderDetails & {
  orderId: string;
  soldBy: string;
  held: boolean;
  confirmationCode: string;
};

/**
 * Writes an order (held, or confirmed: sold at once) while `guard` (an SQL
 * condition: an Idempotency-Key's claim) holds; reads it as written, or
 * null. A `reference` the seller used before fails the statement on its
 * unique index (`isDuplicateReference`), and an `orderId` that names an
 * order (the seller chose it) on the primary key (`isOrderIdTaken`): the
 * batch writes nothing.
 */
export function insertOrder(db: Db, order: NewOrder, guard: Sql = sql`1`): Step<OrderRow | null> {
  const status: RecordedOrderStatus = order.held ? "held" : "confirmed";
  return step(
    db,
    sql`INSERT INTO orders (order_id, sold_by, status, reference, confirmation_code, buyer_details, notes, confirmed_at, updated_at)
        SELECT ${order.orderId}, ${order.soldBy}, ${status}, ${order.reference ?? null},
               ${order.confirmationCode}, ${buyerJson(order.buyer)}, ${order.notes ?? null},
               ${order.held ? null : SQL_NOW}, ${SQL_NOW}
         WHERE ${guard}
        RETURNING ${ORDER_COLUMNS}`,
    read.first<OrderRow>(),
  );
}

/** True when a write failed because its order's reference was used before by the same seller. */
export function isDuplicateReference(error: unknown): boolean {
  return error instanceof Error && error.message.includes("orders.sold_by, orders.reference");
}

/** True when a write failed because its order's id (chosen by the seller) names an order already. */
export function isOrderIdTaken(error: unknown): boolean {
  return error instanceof Error && error.message.includes("orders.order_id");
}

/** True when a write failed on a clash of two orders' confirmation codes (worth one more try with a new one). */
export function isOrderCodeClash(error: unknown): boolean {
  return error instanceof Error && error.message.includes("orders.confirmation_code");
}

/** The order's row (`orders`) of a held order `orderId` of `seller` whose lines may change now (`whileLive`: only while its hold is live). */
function relinable(orderId: string, seller: string, whileLive: boolean): Sql {
  return sql`order_id = ${orderId} AND sold_by = ${seller} AND status = 'held' AND (${whileLive ? 0 : 1} OR ${orderHoldLive(orderId)})`;
}

/**
 * Writes the released order `asideId` that will record the former lines of
 * the held order `orderId` of `seller` (`whileLive`: only while its hold is
 * live), before its lines change: the tickets move to it (tickets'
 * `moveOrderTickets`) and are released there, so the order keeps its id,
 * code and reference and takes new lines. Reads whether it did.
 */
export function insertLinesAside(db: Db, orderId: string, asideId: string, seller: string, whileLive: boolean): Step<boolean> {
  return step(
    db,
    sql`INSERT INTO orders (order_id, sold_by, status, former_lines_of, updated_at)
        SELECT ${asideId}, sold_by, 'released', order_id, ${SQL_NOW} FROM orders WHERE ${relinable(orderId, seller, whileLive)}`,
    (result) => read.changes(result) > 0,
  );
}

/** Whether `insertLinesAside` would set the order's lines aside now. */
export function selectRelinable(db: Db, orderId: string, seller: string, whileLive: boolean): Step<boolean> {
  return step(db, sql`SELECT EXISTS (SELECT 1 FROM orders WHERE ${relinable(orderId, seller, whileLive)}) AS relinable`, (result) =>
    Boolean(read.first<{ relinable: number }>()(result)?.relinable),
  );
}

/** True once `asideId` records the former lines of `orderId`. */
export function linesSetAside(orderId: string, asideId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM orders WHERE order_id = ${asideId} AND former_lines_of = ${orderId})`;
}

/**
 * Records the seller's changes of an order's details (each given field;
 * `buyer` replaces the buyer's details whole) while the order, sold by
 * `seller`, is held or confirmed and `allowed` holds. Reads the order as written, or null. A
 * reference used before fails on its unique index (`isDuplicateReference`).
 */
export function updateOrderDetails(db: Db, orderId: string, seller: string, details: OrderDetails, allowed: Sql = sql`1`): Step<OrderRow | null> {
  return step(
    db,
    sql`UPDATE orders SET reference = ${details.reference === undefined ? raw("reference") : details.reference},
                          buyer_details = ${details.buyer === undefined ? raw("buyer_details") : buyerJson(details.buyer)},
                          notes = ${details.notes === undefined ? raw("notes") : details.notes},
                          updated_at = ${SQL_NOW}
         WHERE order_id = ${orderId} AND sold_by = ${seller} AND status IN ('held', 'confirmed') AND ${allowed}
        RETURNING ${ORDER_COLUMNS}`,
    read.first<OrderRow>(),
  );
}

/** True while the order `orderId`, sold by `seller` (null: by anyone), is recorded as `status`. */
export function orderRecordedAs(orderId: string, status: RecordedOrderStatus, seller: string | null): Sql {
  return sql`EXISTS (SELECT 1 FROM orders WHERE order_id = ${orderId} AND status = ${status} AND (${seller} IS NULL OR sold_by = ${seller}))`;
}

/** The latest a hold of the order `orderId` may end (an SQL timestamp): `minutes` after the order was made. */
export function orderHoldLimit(orderId: string, minutes: number): Sql {
  return sql`(SELECT ${sqlShiftedSeconds(raw("created_at"), minutes * 60)} FROM orders WHERE order_id = ${orderId})`;
}

/**
 * Records a held order as `status` while `allowed` (an SQL condition) holds,
 * with the seller's details given (a confirmation's reference, buyer, notes);
 * reads whether it did. A reference used before fails on its unique index.
 */
export function settleHeldOrder(
  db: Db,
  orderId: string,
  status: "confirmed" | "released",
  allowed: Sql,
  details: OrderDetails = {},
): Step<boolean> {
  return step(
    db,
    sql`UPDATE orders SET status = ${status}, updated_at = ${SQL_NOW},
                          confirmed_at = ${status === "confirmed" ? SQL_NOW : raw("confirmed_at")},
                          reference = ${details.reference === undefined ? raw("reference") : details.reference},
                          buyer_details = ${details.buyer === undefined ? raw("buyer_details") : buyerJson(details.buyer)},
                          notes = ${details.notes === undefined ? raw("notes") : details.notes}
         WHERE order_id = ${orderId} AND status = 'held' AND ${allowed}`,
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
    sql`SELECT o.order_id, o.reference, o.created_at, o.status, o.confirmation_code, o.buyer_details,
               o.notes, o.confirmed_at, o.updated_at, ${orderHoldLive(orderId)} AS live, ${orderLacksEmail(orderId)} AS lacks_email
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
    sql`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_id = ${orderId} AND (${seller} IS NULL OR sold_by = ${seller})`,
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
    sql`SELECT ${ORDER_COLUMNS} FROM orders
         WHERE order_id IN (${ordersWithReference(reference, seller)})
         ORDER BY created_at DESC, rowid DESC`,
    read.rows<OrderRow>(),
  );
}

/** Which orders a read names: one by id, by the seller's reference, by their code, or by a date of their tickets. */
export type OrderSelector =
  | { orderId: string }
  | { reference: string }
  | { confirmationCode: string }
  /** The first `first` orders (oldest first) with a ticket dated in [from, to]. */
  | { ticketDates: { from: IsoDate; to: IsoDate }; first: number };

/**
 * The ids of the orders `selector` names among those sold by `seller` (null:
 * by anyone): an SQL query, for the reads of their tickets. An order that
 * records another's former lines is left out of a read by date.
 */
export function ordersSelected(selector: OrderSelector, seller: string | null): Sql {
  const sold = sql`(${seller} IS NULL OR sold_by = ${seller})`;
  if ("orderId" in selector) return sql`SELECT order_id FROM orders WHERE order_id = ${selector.orderId} AND ${sold}`;
  if ("reference" in selector) return ordersWithReference(selector.reference, seller);
  if ("confirmationCode" in selector) {
    return sql`SELECT order_id FROM orders WHERE confirmation_code = ${selector.confirmationCode} AND ${sold}`;
  }
  const { from, to } = selector.ticketDates;
  return sql`SELECT order_id FROM orders WHERE order_id IN (${ordersWithTicketsIn(from, to)}) AND former_lines_of IS NULL AND ${sold}
              ORDER BY created_at, rowid LIMIT ${selector.first}`;
}

/** The orders `selector` names among those sold by `seller` (null: by anyone), oldest first. */
export function selectOrders(db: Db, selector: OrderSelector, seller: string | null): Step<OrderRow[]> {
  return step(
    db,
    sql`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_id IN (${ordersSelected(selector, seller)}) ORDER BY created_at, rowid`,
    read.rows<OrderRow>(),
  );
}
