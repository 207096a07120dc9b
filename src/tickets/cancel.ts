// The one way other features' changes reach tickets: cancellation, and the refusal to strand them.
import type { BatchRunner, Db } from "../env";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW } from "../platform/sql";
import { forgetTicketLookups } from "./lookup-cache";

/** A schedule change that sold tickets must follow. */
export type TicketCause =
  /** The event is deleted: its valid tickets are cancelled with it. */
  | { kind: "event-deleted"; eventId: string }
  /** The event changes; `dates`, when given, replace its dates. */
  | { kind: "event-changed"; eventId: string; dates?: IsoDate[]; cancelTickets: boolean }
  /** The museum closes on `date` (general tickets only; events run on closed days). */
  | { kind: "day-closed"; date: IsoDate; cancelTickets: boolean };

const VALID = "cancelled_at IS NULL AND admitted_at IS NULL";
const EVENT_ACTIVE = "EXISTS (SELECT 1 FROM special_events WHERE event_id = ?1 AND cancelled_at IS NULL)";

/**
 * The valid tickets a cause leaves without their day (SQL after FROM tickets,
 * with its parameters), or null when it strands none.
 */
function strandedTickets(cause: TicketCause): { where: string; params: unknown[] } | null {
  switch (cause.kind) {
    case "event-deleted":
      return { where: `event_id = ?1 AND ${VALID} AND ${EVENT_ACTIVE}`, params: [cause.eventId] };
    case "event-changed":
      if (!cause.dates) return null;
      return {
        where: `event_id = ?1 AND ${VALID} AND ${EVENT_ACTIVE}
                AND ticket_date NOT IN (SELECT value FROM json_each(?2))`,
        params: [cause.eventId, JSON.stringify(cause.dates)],
      };
    case "day-closed":
      return { where: `ticket_type = 'general' AND ticket_date = ?1 AND ${VALID}`, params: [cause.date] };
  }
}

/** What the database says when a write would strand valid tickets (migrations/0009_admissions.sql). */
const STRANDED_MARKER = "tickets_would_be_stranded";

function isStrandedRefusal(error: unknown): boolean {
  return error instanceof Error && error.message.includes(STRANDED_MARKER);
}

async function strandedProblem(db: Db, stranded: { where: string; params: unknown[] }): Promise<ProblemError> {
  const { results } = await db
    .prepare(`SELECT ticket_date, count(*) AS n FROM tickets WHERE ${stranded.where} GROUP BY ticket_date ORDER BY ticket_date`)
    .bind(...stranded.params)
    .all<{ ticket_date: string; n: number }>();
  const affectedTickets = results.reduce((sum, row) => sum + row.n, 0);
  const dates = results.map((row) => row.ticket_date);
  return new ProblemError(409, {
    type: PROBLEM_TYPES.ticketsAffected,
    title: "Valid tickets affected",
    detail: `This change would leave ${affectedTickets} valid ticket${affectedTickets === 1 ? "" : "s"} without their day (${dates.join(", ")}); nothing was changed. Send it again with ?cancelTickets=true to cancel them with the change.`,
    extensions: { affectedTickets, dates },
  });
}

/**
 * A `BatchRunner` for a change that tickets must follow: the change's
 * statements run in one batch with the tickets' part, their cancellation
 * (always for a deleted event; with `cancelTickets` otherwise), written
 * first, while the event still reads as active and before the dates go.
 * Without it, the database itself refuses a change that would strand valid
 * tickets (a trigger aborts the whole batch); that refusal becomes a 409
 * naming how many tickets and which dates (one more read, only then).
 * Afterwards this isolate looks tickets up afresh: an image prints the
 * event's name and the cancelled state.
 */
export function ticketsFollow(db: Db, cause: TicketCause): BatchRunner {
  return async (changeStatements) => {
    const stranded = strandedTickets(cause);
    const cancels = stranded !== null && (cause.kind === "event-deleted" || cause.cancelTickets);
    const ticketStatements = cancels
      ? [db.prepare(`UPDATE tickets SET cancelled_at = ${SQL_NOW} WHERE ${stranded.where}`).bind(...stranded.params)]
      : [];
    try {
      const results = await db.batch([...ticketStatements, ...changeStatements]);
      return results.slice(ticketStatements.length);
    } catch (error) {
      if (stranded !== null && isStrandedRefusal(error)) throw await strandedProblem(db, stranded);
      throw error;
    } finally {
      forgetTicketLookups();
    }
  };
}
