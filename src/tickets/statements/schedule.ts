// What schedule changes (an event deleted or moved, a day closed or
// re-planned) do to sold tickets: which they strand, and their cancellation.
import sql, { raw, type Sql } from "sql-template-tag";
import type { EventCause } from "../../events/followers";
import { eventIsActive } from "../../events/statements";
import type { HoursCause } from "../../hours/followers";
import { keepsEntry } from "../../hours/statements";
import { type Db, read, type Step, step } from "../../platform/batch";
import { SQL_NOW } from "../../platform/sql";
import type { CancelSource } from "../schemas";

/** A change of the events or the hours that sold tickets follow. */
export type TicketCause = EventCause | HoursCause;

/** Valid for every rule that protects sold tickets: sold and neither admitted nor cancelled, or held by a live hold. */
const VALID = sql`cancelled_at IS NULL AND admitted_at IS NULL AND (hold_until IS NULL OR hold_until > ${SQL_NOW})`;

/** The valid tickets a cause leaves without their day (a condition on `tickets`), or null when it strands none. */
export function strandedBy(cause: TicketCause): Sql | null {
  const valid = sql`${VALID} AND ticket_date >= ${cause.today}`;
  switch (cause.kind) {
    case "event-deleted":
      return sql`event_id = ${cause.eventId} AND ${valid} AND ${eventIsActive(sql`${cause.eventId}`)}`;
    case "event-changed":
      if (!cause.dates) return null;
      return sql`event_id = ${cause.eventId} AND ${valid} AND ${eventIsActive(sql`${cause.eventId}`)}
                 AND ticket_date NOT IN (SELECT value FROM json_each(${JSON.stringify(cause.dates)}))`;
    case "day-changed":
      return sql`ticket_type = 'general' AND ticket_date = ${cause.date} AND ${valid}
                 AND NOT ${keepsEntry(cause.plan, raw("entry_time"))}`;
    case "week-changed": {
      const date = raw("ticket_date");
      return sql`ticket_type = 'general' AND ${valid}
                 AND ${cause.decides(date)} AND NOT ${keepsEntry(cause.planOn(date), raw("entry_time"))}`;
    }
  }
}

/** What a cancellation by `cause` is recorded as (an SQL expression of a ticket's row). */
function cancelSourceOf(cause: TicketCause): Sql {
  switch (cause.kind) {
    case "event-deleted":
      return sql`${"event-deleted" satisfies CancelSource}`;
    case "event-changed":
      return sql`${"date-removed" satisfies CancelSource}`;
    case "day-changed":
      return sql`CASE WHEN ${cause.plan} IS NULL THEN ${"closure" satisfies CancelSource} ELSE ${"schedule-change" satisfies CancelSource} END`;
    case "week-changed":
      return sql`${"schedule-change" satisfies CancelSource}`;
  }
}

/** True when a ticket is among those `stranded` names. */
export function anyTicket(stranded: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE ${stranded})`;
}

/**
 * Cancels the tickets `stranded` names, for `cause`: the museum's change
 * refunds their full price. A held order any of whose tickets it cancels is
 * released whole: all its held tickets, with the same source, refund 0.
 */
export function cancelTickets(db: Db, stranded: Sql, cause: TicketCause): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET cancelled_at = ${SQL_NOW}, cancel_source = ${cancelSourceOf(cause)},
                           refund_cents = CASE WHEN hold_until IS NULL THEN price_cents ELSE 0 END
         WHERE (${stranded})
            OR (hold_until IS NOT NULL AND cancelled_at IS NULL
                AND order_id IN (SELECT order_id FROM tickets WHERE (${stranded}) AND hold_until IS NOT NULL))`,
    read.nothing,
  );
}

/** How many tickets `stranded` names, per date, in date order. */
export function countTicketsByDate(db: Db, stranded: Sql): Step<{ ticket_date: string; n: number }[]> {
  return step(
    db,
    sql`SELECT ticket_date, count(*) AS n FROM tickets WHERE ${stranded} GROUP BY ticket_date ORDER BY ticket_date`,
    read.rows<{ ticket_date: string; n: number }>(),
  );
}

