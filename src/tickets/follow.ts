// How sold tickets follow other features' changes (an event deleted, an
// event's dates changed, a day closed): the tickets' part of the change's batch.
import sql from "sql-template-tag";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { type Batch, type Db, runStep } from "../platform/batch";
import { forgetTicketLookups } from "../ticket-image";
import {
  anyTicket,
  cancelTickets,
  countTicketsByDate,
  type PlaceLimit,
  placesOverLimit,
  selectPlacesOverLimit,
  strandedBy,
  type TicketCause,
} from "./statements";


/** The tickets' part of a change, once added to its batch. */
export type TicketsPart = {
  /**
   * Waits for the batch's run; either way this isolate then looks tickets up
   * afresh (an image prints the event's name and the cancelled state).
   */
  settle(run: Promise<void>): Promise<void>;
};

/** The 409 naming the tickets a change would strand, or null when it strands none (any more). */
async function strandedProblem(db: Db, stranded: Parameters<typeof countTicketsByDate>[1]): Promise<ProblemError | null> {
  const counts = await runStep(countTicketsByDate(db, stranded));
  const affectedTickets = counts.reduce((sum, row) => sum + row.n, 0);
  if (affectedTickets === 0) return null;
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
 * with `cancelTickets` otherwise; else a guard that undoes the batch when it
 * would strand any (the 409).
 */
export function followTickets(batch: Batch, cause: TicketCause): TicketsPart {
  const stranded = strandedBy(cause);
  if (stranded !== null) {
    if (cause.kind === "event-deleted" || cause.cancelTickets) batch.add(cancelTickets(batch.db, stranded, cause));
    else batch.guard(anyTicket(stranded), () => strandedProblem(batch.db, stranded));
  }
  return {
    async settle(run) {
      try {
        await run;
      } finally {
        forgetTicketLookups();
      }
    },
  };
}

/** The 409 naming the dates a change's limits would leave over what is sold, or null when none. */
async function belowSoldProblem(db: Db, limits: PlaceLimit[]): Promise<ProblemError | null> {
  const sold = new Map<string, number>();
  for (const limit of limits) {
    for (const row of await runStep(selectPlacesOverLimit(db, limit))) {
      sold.set(row.ticket_date, Math.max(sold.get(row.ticket_date) ?? 0, row.sold));
    }
  }
  if (sold.size === 0) return null;
  const dates = [...sold.keys()].sort();
  const most = Math.max(...sold.values());
  return new ProblemError(409, {
    type: PROBLEM_TYPES.capacityBelowSold,
    title: "Capacity below tickets sold",
    detail: `The new limit is below the places already taken on ${dates.join(", ")} (up to ${most}); nothing was changed.`,
    extensions: { dates, sold: most },
  });
}

/**
 * Adds a guard to a change that sets limits on places (an event's capacity,
 * a day's or a slot's): after the change's own statements, the batch is
 * undone when a limit is below what is already taken (the 409
 * capacity-below-sold). Cancelling tickets never makes room for a lower limit.
 */
export function guardPlaces(batch: Batch, limits: PlaceLimit[]): void {
  if (limits.length === 0) return;
  const violated = limits.map(placesOverLimit).reduce((a, b) => sql`${a} OR ${b}`);
  batch.guard(violated, () => belowSoldProblem(batch.db, limits));
}
