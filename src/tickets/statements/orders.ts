// An order's tickets taken together: the orders with tickets on given days,
// the plan of each of their days, the buyer's contact they carry, and the
// lines an order sets aside when its lines change while held.
import sql, { raw, type Sql } from "sql-template-tag";
import { dayPlanOn, slotEndOf } from "../../hours/statements";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import { SQL_NOW } from "../../platform/sql";
import type { CancelSource } from "../schemas";
import { soldBy, type TicketColumns } from "./rows";

/** The ids of the orders with a ticket dated in [from, to] (an SQL query: a read of tickets_by_date). */
export function ordersWithTicketsIn(from: IsoDate, to: IsoDate): Sql {
  return sql`SELECT DISTINCT order_id FROM tickets WHERE ticket_date BETWEEN ${from} AND ${to} AND order_id IS NOT NULL`;
}

/**
 * A day (and entry time) of an order's tickets, the museum's plan for it
 * (JSON as `dayPlanOn` gives it; null: closed) and, for an entry time, when its slot ends.
 */
export type OrderDayPlanRow = { order_id: string; ticket_date: string; entry_time: string | null; plan: string | null; slot_end: string | null };

/**
 * The days and entry times of the tickets of the orders `orderIds` (an id,
 * or an SQL query of ids), sold by `seller` (null: by anyone), with each
 * day's plan and each slot's end.
 */
export function selectOrderDayPlans(db: Db, orderIds: string | Sql, seller: string | null): Step<OrderDayPlanRow[]> {
  const slotEnd = sql`CASE WHEN entry_time IS NULL THEN NULL ELSE ${slotEndOf(raw("plan"), raw("entry_time"))} END`;
  return step(
    db,
    sql`SELECT order_id, ticket_date, entry_time, plan, ${slotEnd} AS slot_end
          FROM (SELECT DISTINCT t.order_id, t.ticket_date, t.entry_time, ${dayPlanOn(raw("t.ticket_date"))} AS plan
                  FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)})`,
    read.rows<OrderDayPlanRow>(),
  );
}

/**
 * The ids of the tickets of the orders `orderIds` (an id, or an SQL query of
 * ids), sold by `seller` (null: by anyone), for which `which` (an SQL
 * condition on a ticket's columns) holds.
 */
export function selectOrderTicketIdsWhere(
  db: Db,
  orderIds: string | Sql,
  seller: string | null,
  which: (ticket: TicketColumns) => Sql,
): Step<string[]> {
  const columns = { ticketType: raw("t.ticket_type"), ticketDate: raw("t.ticket_date"), entryTime: raw("t.entry_time") };
  return step(
    db,
    sql`SELECT t.ticket_id FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)} AND ${which(columns)}`,
    (result) => read.rows<{ ticket_id: string }>()(result).map((row) => row.ticket_id),
  );
}

/** The buyer's contact an order's tickets carry (null until a held order's confirmation brings it). */
export type OrderBuyerRow = { order_id: string; buyer_email: string | null; buyer_phone: string | null };

/**
 * The buyer's e-mail and phone of the orders `orderIds` (an id, or an SQL
 * query of ids) sold by `seller` (null: by anyone): for the seller's own
 * answers about its sale, never another account's.
 */
export function selectOrderBuyers(db: Db, orderIds: string | Sql, seller: string | null): Step<OrderBuyerRow[]> {
  return step(
    db,
    sql`SELECT t.order_id, max(t.buyer_email) AS buyer_email, max(t.buyer_phone) AS buyer_phone
          FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)} GROUP BY t.order_id`,
    read.rows<OrderBuyerRow>(),
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
