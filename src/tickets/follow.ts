// How sold tickets follow other features' changes (an event deleted, an
// event's dates changed, a day closed): the tickets' part of the change's batch.
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { type Batch, type Db, runStep } from "../platform/batch";
import { forgetTicketLookups } from "./lookup";
import { cancelTickets, countTicketsByDate, strandedBy, type TicketCause } from "./statements";


/** The tickets' part of a change, once added to its batch. */
export type TicketsPart = {
  /**
   * Waits for the batch's run: a database refusal to strand valid tickets
   * becomes the 409 naming how many and which dates (one more read, only
   * then); either way this isolate then looks tickets up afresh (an image
   * prints the event's name and the cancelled state).
   */
  settle(run: Promise<void>): Promise<void>;
};

/** What the database says when a write would strand valid tickets (migrations/0009_admissions.sql). */
const STRANDED_MARKER = "tickets_would_be_stranded";

function isStrandedRefusal(error: unknown): boolean {
  return error instanceof Error && error.message.includes(STRANDED_MARKER);
}

async function strandedProblem(db: Db, stranded: Parameters<typeof countTicketsByDate>[1]): Promise<ProblemError> {
  const counts = await runStep(countTicketsByDate(db, stranded));
  const affectedTickets = counts.reduce((sum, row) => sum + row.n, 0);
  const dates = counts.map((row) => row.ticket_date);
  return new ProblemError(409, {
    type: PROBLEM_TYPES.ticketsAffected,
    title: "Valid tickets affected",
    detail: `This change would leave ${affectedTickets} valid ticket${affectedTickets === 1 ? "" : "s"} without their day (${dates.join(", ")}); nothing was changed. Send it again with ?cancelTickets=true to cancel them with the change.`,
    extensions: { affectedTickets, dates },
  });
}

/**
 * Adds the tickets' part of a change to its batch, before the change's own
 * statements (the event still reads as active, the dates are still there):
 * the cancellation of the tickets it strands, always for a deleted event and
 * with `cancelTickets` otherwise. Without it, the database itself refuses a
 * change that would strand valid tickets (a trigger aborts the whole batch).
 */
export function followTickets(batch: Batch, cause: TicketCause): TicketsPart {
  const stranded = strandedBy(cause);
  if (stranded !== null && (cause.kind === "event-deleted" || cause.cancelTickets)) {
    batch.add(cancelTickets(batch.db, stranded));
  }
  return {
    async settle(run) {
      try {
        await run;
      } catch (error) {
        if (stranded !== null && isStrandedRefusal(error)) throw await strandedProblem(batch.db, stranded);
        throw error;
      } finally {
        forgetTicketLookups();
      }
    },
  };
}
