// An order's tickets taken together: the orders with tickets on given days,
// the plan of each of their days, the buyer's contact they carry, and the
// lines an order sets aside when its lines change while held.
import sql, { raw, type Sql } from "sql-template-tag";
import { dayPlanOn, slotEndOf } from "../../hours/statements";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import { SQL_NOW } from "../../platform/sql";
import type { CancelSource } from "../schemas";
import { BY_ORDER, ORDER_TICKET_ROW, type OrderTicketRow } from "./holds";
import { soldBy, type TicketColumns } from "./rows";

/** The ids of the orders with a ticket dated in [from, to] (an SQL query: a read of tickets_by_date). */
export function ordersWithTicketsIn(from: IsoDate, to: IsoDate): Sql {
  return sql`SELECT DISTINCT order_id FROM tickets WHERE ticket_date BETWEEN ${from} AND ${to} AND order_id IS NOT NULL`;
}

/**
 * A ticket of an order as its record reads it: with its order's hold, the
 * buyer's contact its order's tickets carry (null until a held order's
 * confirmation brings it), its day's plan (JSON as `dayPlanOn` gives it;
 * null: closed) and, for an entry time, when its slot ends, and whether the
 * condition the reader asks about holds for it (`which`; `matches`: 1 or 0).
 */
export type OrderTicketRecordRow = OrderTicketRow & {
  order_buyer_email: string | null;
  order_buyer_phone: string | null;
  plan: string | null;
  slot_end: string | null;
  matches: number;
};

/**
 * The buyer's contact an order's tickets `t` carry (SQL aggregates, of a
 * query or of the window `over`): the one its tickets share, or null.
 */
const orderBuyerContact = (t: Sql, over: Sql = sql``) => ({
  email: sql`max(${t}.buyer_email) ${over}`,
  phone: sql`max(${t}.buyer_phone) ${over}`,
});

/**
 * The tickets of the orders `orderIds` (an id, or an SQL query of ids), sold
 * by `seller` (null: by anyone), each order's in the order of its lines, as
 * `OrderTicketRecordRow`s, `which` an SQL condition on a ticket's columns.
 * One statement: all an order's record needs of its tickets. The buyer's
 * contact is for the seller's own answers about its sale, never another account's.
 */
export function selectOrderTicketRecords(db: Db, orderIds: string | Sql, seller: string | null, which: (ticket: TicketColumns) => Sql): Step<OrderTicketRecordRow[]> {
  const columns = { ticketType: raw("t.ticket_type"), ticketDate: raw("t.ticket_date"), entryTime: raw("t.entry_time") };
  const slotEnd = sql`CASE WHEN entry_time IS NULL THEN NULL ELSE ${slotEndOf(raw("plan"), raw("entry_time"))} END`;
  const buyer = orderBuyerContact(raw("t"), BY_ORDER);
  return step(
    db,
    sql`SELECT *, ${slotEnd} AS slot_end
          FROM (SELECT ${ORDER_TICKET_ROW}, ${buyer.email} AS order_buyer_email, ${buyer.phone} AS order_buyer_phone,
                       ${dayPlanOn(raw("t.ticket_date"))} AS plan, CASE WHEN ${which(columns)} THEN 1 ELSE 0 END AS matches, t.order_line
                  FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)})
          ORDER BY order_id, order_line`,
    read.rows<OrderTicketRecordRow>(),
  );
}

/**
 * Gives the tickets of the order `orderId`, sold by `seller`, the buyer's new
 * e-mail (and phone: a new e-mail replaces the phone too), as a confirmation does.
 */
export function setOrderBuyerContact(db: Db, orderId: string, seller: string, contact: { email: string; phone?: string }): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET buyer_email = ${contact.email}, buyer_phone = ${contact.phone ?? null}
         WHERE order_id = ${orderId} AND sold_by = ${seller}`,
    read.nothing,
  );
}

/**
 * The buyer's e-mail and phone that the tickets of the order `orderId` carry
 * when the statement runs (SQL expressions): what a held order's new lines
 * keep, its former lines set aside on `orderId` earlier in the batch (a
 * change of contact made meanwhile included).
 */
export function buyerContactOf(orderId: string): { email: Sql; phone: Sql } {
  const buyer = orderBuyerContact(raw("tickets"));
  return {
    email: sql`(SELECT ${buyer.email} FROM tickets WHERE order_id = ${orderId})`,
    phone: sql`(SELECT ${buyer.phone} FROM tickets WHERE order_id = ${orderId})`,
  };
}

/** Moves the tickets of the order `from` to the order `to` (their lines kept) while `allowed` (an SQL condition) holds. */
export function moveOrderTickets(db: Db, from: string, to: string, allowed: Sql): Step<void> {
  return step(db, sql`UPDATE tickets SET order_id = ${to} WHERE order_id = ${from} AND ${allowed}`, read.nothing);
}

/**
 * Releases the held tickets of the order `orderId` (live, or run out and
 * not yet recorded) while `allowed` (an SQL condition) holds: their places
 * are free at once, refund 0 (nothing was paid). For the former lines of
 * an order whose lines changed (sales' `insertLinesAside`).
 */
export function releaseHeldTickets(db: Db, orderId: string, allowed: Sql): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET cancelled_at = ${SQL_NOW}, cancel_source = ${"hold-released" satisfies CancelSource}, refund_cents = 0
         WHERE order_id = ${orderId} AND hold_until IS NOT NULL AND cancelled_at IS NULL AND ${allowed}`,
    read.nothing,
  );
}
