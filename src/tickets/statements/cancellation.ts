// The box office's statements on tickets: giving tickets back, the
// companion an accompanied ticket keeps, and a cancellation read again.
import sql, { raw, type Sql } from "sql-template-tag";
import { isAccompanied } from "../../categories/statements";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { CancelSource } from "../schemas";
import { soldBy, type TicketColumns } from "./rows";

/** A box-office cancellation: which tickets (one, or an order's), by whom, and why. */
export type BoxOfficeCancellation = {
  target: { ticketId: string } | { orderId: string };
  cancellationId: string;
  /** When (RFC 3339, UTC). */
  cancelledAt: string;
  reason: string | null;
  /** The account that cancels (`cancellation.by`). */
  by: string;
  /** Only tickets this account sold; null: any (tickets/access.ts). */
  soldBy: string | null;
  /** True while a ticket can still be cancelled (an SQL condition on its columns). */
  cancellable: (ticket: TicketColumns) => Sql;
};

/** A ticket a cancellation took, and what is owed back for it. */
export type CancelledTicket = { ticket_id: string; refund_cents: number };

/**
 * Cancels the target's tickets that can still be cancelled, refunding their
 * recorded price: valid (neither admitted nor cancelled), sold by `soldBy`
 * when given, and `cancellable`. An order's held tickets (live or run out)
 * are released instead: `hold-released`, refund 0 (nothing was paid); a
 * single held ticket is not cancelled (its order is released whole).
 * `guard`, an SQL condition, must hold too (an Idempotency-Key's claim).
 * Reads the tickets it cancelled; the places they took are free when it
 * returns (migrations/0011_capacity.sql).
 */
export function cancelAtBoxOffice(db: Db, cancellation: BoxOfficeCancellation, guard: Sql = sql`1`): Step<CancelledTicket[]> {
  const { target } = cancellation;
  const columns = { ticketType: raw("t.ticket_type"), ticketDate: raw("t.ticket_date"), entryTime: raw("t.entry_time") };
  return step(
    db,
    sql`UPDATE tickets AS t
           SET cancelled_at = ${cancellation.cancelledAt}, cancellation_id = ${cancellation.cancellationId},
               cancel_source = CASE WHEN t.hold_until IS NULL THEN ${"box-office" satisfies CancelSource}
                                    ELSE ${"hold-released" satisfies CancelSource} END,
               cancel_reason = ${cancellation.reason}, cancelled_by = ${cancellation.by},
               refund_cents = CASE WHEN t.hold_until IS NULL THEN t.price_cents ELSE 0 END
         WHERE ${"ticketId" in target ? sql`t.ticket_id = ${target.ticketId} AND t.hold_until IS NULL` : sql`t.order_id = ${target.orderId}`}
           AND t.cancelled_at IS NULL AND t.admitted_at IS NULL
           AND ${soldBy(cancellation.soldBy)}
           AND (t.hold_until IS NOT NULL OR ${cancellation.cancellable(columns)})
           AND ${guard}
        RETURNING ticket_id, refund_cents`,
    read.rows<CancelledTicket>(),
  );
}

/**
 * True when the ticket `ticketId` is the last companion of an accompanied
 * ticket of its order: a valid ticket of an accompanied category, for the
 * same date, event (or general) and entry time, with no other valid or
 * admitted ticket there of a category that is not accompanied.
 */
export function lastCompanion(ticketId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets t JOIN tickets c
       ON c.order_id = t.order_id AND c.ticket_id <> t.ticket_id AND c.ticket_date = t.ticket_date
      AND c.event_id IS t.event_id AND c.entry_time IS t.entry_time
    WHERE t.ticket_id = ${ticketId} AND NOT ${isAccompanied(raw("t.category"))}
      AND c.cancelled_at IS NULL AND c.admitted_at IS NULL AND ${isAccompanied(raw("c.category"))}
      AND NOT EXISTS (SELECT 1 FROM tickets m
                       WHERE m.order_id = c.order_id AND m.ticket_id <> t.ticket_id AND m.cancelled_at IS NULL
                         AND m.ticket_date = c.ticket_date AND m.event_id IS c.event_id AND m.entry_time IS c.entry_time
                         AND NOT ${isAccompanied(raw("m.category"))}))`;
}

export function selectLastCompanion(db: Db, ticketId: string): Step<boolean> {
  return step(db, sql`SELECT ${lastCompanion(ticketId)} AS last`, (result) => read.first<{ last: number }>()(result)?.last === 1);
}

/** True when the cancellation `cancellationId` took the ticket `ticketId`. */
export function cancelledBy(ticketId: string, cancellationId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE ticket_id = ${ticketId} AND cancellation_id = ${cancellationId})`;
}

/** True once the cancellation `cancellationId` took a ticket. */
export function cancellationMade(cancellationId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE cancellation_id = ${cancellationId})`;
}

/** The tickets the cancellation `cancellationId` took (for its answer again). */
export function selectCancelledBy(db: Db, cancellationId: string): Step<CancelledTicket[]> {
  return step(
    db,
    sql`SELECT ticket_id, refund_cents FROM tickets WHERE cancellation_id = ${cancellationId}`,
    read.rows<CancelledTicket>(),
  );
}

