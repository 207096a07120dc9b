// An order's held tickets: their hold's end, its extension, and their
// confirmation (a late one counts the order's lines ahead of each).
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../../platform/batch";
import { SQL_NOW } from "../../platform/sql";
import type { CancelSource } from "../schemas";
import type { TicketColumns } from "./rows";

/** When the order `orderId`'s hold ends (an SQL expression; NULL: it has no held ticket): its tickets' hold_until. */
export function orderHoldEnd(orderId: string): Sql {
  return sql`(SELECT min(hold_until) FROM tickets WHERE order_id = ${orderId})`;
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

/** True while the order `orderId` is held by a live hold (the database's clock). */
export function orderHoldLive(orderId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE order_id = ${orderId} AND cancelled_at IS NULL AND hold_until > ${SQL_NOW})`;
}

/** True when the held order `orderId` has a ticket without the buyer's e-mail. */
export function orderLacksEmail(orderId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE order_id = ${orderId} AND buyer_email IS NULL)`;
}

/**
 * The places the tickets of `t`'s order ahead of it (lower lines) take in
 * each of its scopes: what a late confirmation counts, in the order of the
 * lines, before `t` (its held tickets take no place any more).
 */
export function orderLinesAhead(t: Sql): { day: Sql; slot: Sql; event: Sql } {
  const ahead = (scope: Sql) =>
    sql`(SELECT count(*) FROM tickets o WHERE o.order_id = ${t}.order_id AND o.order_line < ${t}.order_line
                                        AND o.ticket_date = ${t}.ticket_date AND ${scope})`;
  return {
    day: ahead(sql`o.ticket_type = 'general'`),
    slot: ahead(sql`o.entry_time = ${t}.entry_time`),
    event: ahead(sql`o.ticket_type = 'event' AND o.event_id = ${t}.event_id`),
  };
}

/** True when some ticket `t` of the order `orderId` fails `sellable` (an SQL condition on `t`). */
export function anyOrderTicketFails(orderId: string, sellable: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = ${orderId} AND NOT ${sellable})`;
}

/**
 * Sells the held tickets of the order `orderId` (live, or run out whether
 * recorded or not) when `confirming` (an SQL condition) holds: no hold any
 * more, and the buyer's contact when given (a new e-mail replaces the phone
 * too). A recorded expiry is undone and its places taken again
 * (migrations/0015). Reads how many it sold.
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
    sql`UPDATE tickets SET hold_until = NULL, cancelled_at = NULL, cancel_source = NULL, refund_cents = NULL,
                           buyer_email = coalesce(${email}, buyer_email),
                           buyer_phone = CASE WHEN ${email} IS NULL THEN buyer_phone ELSE ${contact.phone ?? null} END
         WHERE order_id = ${orderId} AND hold_until IS NOT NULL
           AND (cancelled_at IS NULL OR cancel_source = ${"hold-expired" satisfies CancelSource})
           AND ${confirming}`,
    read.changes,
  );
}

/**
 * Moves the live hold of the order `orderId` to end at `until` (an SQL
 * expression of a ticket's columns) while `allowed` holds, then aligns its
 * tickets on the first end (`alignOrderHold`). Reads how many it moved.
 */
export function extendOrderHold(db: Db, orderId: string, until: (ticket: TicketColumns) => Sql, allowed: Sql): Step<number> {
  const columns = { ticketType: raw("ticket_type"), ticketDate: raw("ticket_date"), entryTime: raw("entry_time") };
  return step(
    db,
    sql`UPDATE tickets SET hold_until = ${until(columns)}
         WHERE order_id = ${orderId} AND cancelled_at IS NULL AND hold_until > ${SQL_NOW} AND ${allowed}`,
    read.changes,
  );
}
