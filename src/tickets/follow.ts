// How sold tickets follow other features' changes (an event deleted, an
// event's dates changed, a day closed): the tickets' part of the change's
// batch, which the events and the hours are handed (app.ts).
import sql, { type Sql } from "sql-template-tag";
import type { EventTickets } from "../events/followers";
import type { HoursTickets } from "../hours/followers";
import { planField } from "../hours/statements";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { type Batch, type BatchPart, type Db, runStep } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { type PlaceLimit, placesOverLimit, selectPlacesOverLimit } from "./statements/places";
import { anyTicket, cancelTickets, countTicketsByDate, strandedBy, type TicketCause } from "./statements/schedule";

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
 * would strand any (the 409). Once the batch ran, or failed, `changed` runs.
 */
function followTickets(batch: Batch, cause: TicketCause, changed: () => void): BatchPart {
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
        changed();
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
function guardPlaces(batch: Batch, limits: PlaceLimit[]): void {
  if (limits.length === 0) return;
  const violated = limits.map(placesOverLimit).reduce((a, b) => sql`${a} OR ${b}`);
  batch.guard(violated, () => belowSoldProblem(batch.db, limits));
}

/** The day's and the slots' limits of `planOn(date)` (JSON, NULL: none), from `from` (to `until`) on. */
function generalLimits(planOn: (date: Sql) => Sql, from: IsoDate, until?: IsoDate): PlaceLimit[] {
  return [
    { scope: "day", from, until, limit: (date) => planField(planOn(date), "capacity") },
    { scope: "slot", from, until, limit: (date) => planField(planOn(date), "slotCapacity") },
  ];
}

/**
 * The tickets' part in the changes of events and of the hours. `changed`
 * runs after each such change's batch, whether it ran or not (app.ts: this
 * isolate then looks tickets up afresh, as an image prints the event's name
 * and the cancelled state).
 */
export function ticketsFollowing(changed: () => void): { events: EventTickets; hours: HoursTickets } {
  return {
    events: {
      follow: (batch, cause) => followTickets(batch, cause, changed),
      guardCapacity: (batch, eventId, from, capacity) =>
        guardPlaces(batch, [{ scope: "event", ref: eventId, from, limit: () => sql`${capacity}` }]),
    },
    hours: {
      follow: (batch, cause) => followTickets(batch, cause, changed),
      guardLimits: (batch, planOn, from, until) => guardPlaces(batch, generalLimits(planOn, from, until)),
    },
  };
}
