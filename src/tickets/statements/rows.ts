// A ticket's row as every read of it names it (the tickets table), and the
// fragments other statements on tickets share.
import sql, { raw, type Sql } from "sql-template-tag";
import { categoryName } from "../../categories/statements";
import { eventName } from "../../events/statements";
import { type Db, read, type Step, step } from "../../platform/batch";
import { SQL_NOW } from "../../platform/sql";
import type { CancelSource, TicketType } from "../schemas";

/** True while a ticket's hold has ended by the database's clock (`t`: the ticket's alias) and nothing recorded it yet. */
export const holdRanOut = (t: Sql) => sql`${t}.hold_until IS NOT NULL AND ${t}.cancelled_at IS NULL AND ${t}.hold_until <= ${SQL_NOW}`;

/** A ticket's facts as every read of it names them (never the buyer's contact details). */
export type TicketRow = {
  ticket_id: string;
  ticket_type: TicketType;
  ticket_date: string;
  event_id: string | null;
  event_name: string | null;
  confirmation_code: string;
  entry_time: string | null;
  category: string;
  category_name: string;
  price_cents: number;
  sold_by: string;
  order_id: string | null;
  cancelled_at: string | null;
  cancel_source: CancelSource | null;
  cancel_reason: string | null;
  cancelled_by: string | null;
  refund_cents: number | null;
  admitted_at: string | null;
  /** While held (or once its hold ran out or was released): when its hold ends. */
  hold_until: string | null;
  /** 1 when the hold ran out by the database's clock and nothing recorded it yet. */
  hold_expired: number;
};

const TICKET_ROW = sql`t.ticket_id, t.ticket_type, t.ticket_date, t.event_id, ${eventName(sql`t.event_id`)} AS event_name,
  t.confirmation_code, t.entry_time, t.category, ${categoryName(raw("t.category"))} AS category_name, t.price_cents, t.sold_by, t.order_id,
  t.cancelled_at, t.cancel_source, t.cancel_reason, t.cancelled_by, t.refund_cents, t.admitted_at,
  t.hold_until, coalesce(${holdRanOut(raw("t"))}, 0) AS hold_expired`;

/** Tickets `t` sold by `seller`; null: by anyone (tickets/access.ts). */
export const soldBy = (seller: string | null) => sql`(${seller} IS NULL OR t.sold_by = ${seller})`;

/** The ticket `ticketId` (a value, or an SQL expression such as an admission's ticket) sold by `seller` (null: by anyone), or null. */
export function selectTicket(db: Db, ticketId: string | Sql, seller: string | null): Step<TicketRow | null> {
  return step(
    db,
    sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.ticket_id = ${ticketId} AND ${soldBy(seller)}`,
    read.first<TicketRow>(),
  );
}

/** The ticket whose confirmation code is `code` (as stored: lower case), sold by `seller` (null: by anyone), or null. */
export function selectTicketByConfirmationCode(db: Db, code: string, seller: string | null): Step<TicketRow | null> {
  return step(
    db,
    sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.confirmation_code = ${code} AND ${soldBy(seller)}`,
    read.first<TicketRow>(),
  );
}

/**
 * The tickets of an order (an id, or an SQL query of order ids: several
 * orders) sold by `seller` (null: by anyone), each order's in the order of its lines.
 */
export function selectOrderTickets(db: Db, orderIds: string | Sql, seller: string | null): Step<TicketRow[]> {
  return step(
    db,
    sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)} ORDER BY t.order_id, t.order_line`,
    read.rows<TicketRow>(),
  );
}

/** A ticket's columns as SQL expressions, for a condition another feature builds on a ticket. */
export type TicketColumns = { ticketType: Sql; ticketDate: Sql; entryTime: Sql };

