// An order's tickets and its hold: the hold's end and whether it is live,
// its extension, and the confirmation of its tickets (a late one counts the
// order's lines ahead of each).
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../../platform/batch";
import { holdLive, soldBy, type TicketColumns, TICKET_ROW, type TicketRow } from "./rows";

/**
 * An order's hold, over its tickets `t` (SQL aggregates, of a query, or of
 * the window `over`): its end, the first of its tickets' (aligned, they
 * share it; NULL: nothing held), and whether it is live (1 while any ticket
 * is, else 0).
 */
const orderHold = {
  end: (t: Sql, over: Sql = sql``) => sql`min(${t}.hold_until) ${over}`,
  live: (t: Sql, over: Sql = sql``) => sql`coalesce(max(${holdLive(t)}) ${over}, 0)`,
};

/** When the order `orderId`'s hold ends (an SQL expression; NULL: it has no held ticket). */
export function orderHoldEnd(orderId: string): Sql {
  return sql`(SELECT ${orderHold.end(raw("tickets"))} FROM tickets WHERE order_id = ${orderId})`;
}

/** A ticket of an order as read with its order's hold (`orderHold`, the same for all of its tickets). */
export type OrderTicketRow = TicketRow & { order_hold_end: string | null; order_hold_live: number };

/** A window of the tickets `t` of one order. */
export const BY_ORDER = sql`OVER (PARTITION BY t.order_id)`;
/** The columns of an `OrderTicketRow`, of tickets `t` (its order's hold over a window of the order's tickets). */
export const ORDER_TICKET_ROW = sql`${TICKET_ROW}, ${orderHold.end(raw("t"), BY_ORDER)} AS order_hold_end, ${orderHold.live(raw("t"), BY_ORDER)} AS order_hold_live`;

/**
 * The tickets of an order (an id, or an SQL query of order ids: several
 * orders) sold by `seller` (null: by anyone), each order's in the order of
 * its lines, with its order's hold.
 */
export function selectOrderTickets(db: Db, orderIds: string | Sql, seller: string | null): Step<OrderTicketRow[]> {
  return step(
    db,
    sql`SELECT ${ORDER_TICKET_ROW}
          FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)} ORDER BY t.order_id, t.order_line`,
    read.rows<OrderTicketRow>(),
  );
}

/**
 * Ends every held ticket of the order `orderId` with the first of them to
 * end: the order's hold has one end. Reads that end (null: nothing held).
 */
export function alignOrderHold(db: Db, orderId: string): Step<string | null> {
  return step(
    db,
    sql`UPDATE tickets SET hold_until = ${orderHoldEnd(orderId)} WHERE order_id = ${orderId} AND hold_until IS NOT NULL
        RETURNING hold_until`,
    (result) => read.first<{ hold_until: string }>()(result)?.hold_until ?? null,
  );
}

/** True (1) while the order `orderId` is held by a live hold (the database's clock), else 0. */
export function orderHoldLive(orderId: string): Sql {
  return sql`(SELECT ${orderHold.live(raw("tickets"))} FROM tickets WHERE order_id = ${orderId})`;
}

/** True when the held order `orderId` has a ticket without the buyer's e-mail. */
export function orderLacksEmail(orderId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE order_id = ${orderId} AND buyer_email IS NULL)`;
}

/** True when some ticket `t` of the order `orderId` fails `sellable` (an SQL condition on `t`). */
export function anyOrderTicketFails(orderId: string, sellable: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = ${orderId} AND NOT ${sellable})`;
}

/**
 * Sells the held tickets of the order `orderId` (live, or run out: a hold
 * that ran out still takes its places in ticket_places) when `confirming`
 * (an SQL condition) holds: no hold any more, and the buyer's contact when
 * given (a new e-mail replaces the phone too). Reads how many it sold.
 */
export function confirmHeldTickets(
  db: Db,
  orderId: string,
  contact: { email?: string; phone?: string },
  confirming: Sql,
): Step<number> {
  const email = contact.email ?? null;
  return step(
    db,
    sql`UPDATE tickets SET hold_until = NULL,
                           buyer_email = coalesce(${email}, buyer_email),
                           buyer_phone = CASE WHEN ${email} IS NULL THEN buyer_phone ELSE ${contact.phone ?? null} END
         WHERE order_id = ${orderId} AND hold_until IS NOT NULL AND cancelled_at IS NULL AND ${confirming}`,
    read.changes,
  );
}

/**
 * Moves the live hold of the order `orderId` to end at `until` (an SQL
 * expression of a ticket's columns) while `allowed` holds; `alignOrderHold`
 * then gives its tickets one end again. Reads how many it moved.
 */
export function extendOrderHold(db: Db, orderId: string, until: (ticket: TicketColumns) => Sql, allowed: Sql): Step<number> {
  const columns = { ticketType: raw("ticket_type"), ticketDate: raw("ticket_date"), entryTime: raw("entry_time") };
  return step(
    db,
    sql`UPDATE tickets SET hold_until = ${until(columns)} WHERE order_id = ${orderId} AND ${holdLive(raw("tickets"))} AND ${allowed}`,
    read.changes,
  );
}
