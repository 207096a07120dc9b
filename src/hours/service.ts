// The hours feature's reads and writes. A change that can move or close a
// day runs in one batch with the tickets' part (sold general tickets follow
// it, or refuse it) and a guard on the limits it sets.
import sql, { type Sql } from "sql-template-tag";
import { Batch, type Db, runStep } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import type { DayPlan, HoursException, WeeklySchedule } from "./calendar";
import type { HoursTickets } from "./followers";
import * as statements from "./statements";

/**
 * The open days in [from, to], ascending, skipping the first `skip` and
 * returning at most `take` (with `slots`, each with its slot starts), in one round trip.
 */
export function readOpenDays(
  db: Db,
  range: { from: IsoDate; to: IsoDate },
  page: { skip: number; take: number; slots: boolean },
): Promise<statements.OpenDay[]> {
  return runStep(statements.selectOpenDays(db, range, page));
}

export function readHoursExceptions(db: Db, from: IsoDate, to: IsoDate): Promise<HoursException[]> {
  return runStep(statements.selectExceptions(db, from, to));
}

export function readWeeklySchedule(db: Db): Promise<WeeklySchedule> {
  return runStep(statements.selectWeeklySchedule(db));
}

/** What a change of the hours decides beyond its own data. */
export type HoursChange = {
  /** Today in the museum's time zone: tickets and limits are checked from here on. */
  today: IsoDate;
  /** Cancel the valid tickets the change leaves without their day or slot (else it is refused, 409). */
  cancelTickets: boolean;
};

/**
 * Replaces the whole week in one atomic batch. A week that closes a day, or
 * moves its hours or slots, under valid general tickets (today or later, on
 * dates without an exception) is refused (409 tickets-affected) unless
 * `cancelTickets`; a limit below what is taken is refused (409 capacity-below-sold).
 */
export async function writeWeeklySchedule(db: Db, schedule: WeeklySchedule, change: HoursChange, tickets: HoursTickets): Promise<void> {
  const batch = new Batch(db);
  const ticketsPart = tickets.follow(batch, {
    kind: "week-changed",
    today: change.today,
    decides: statements.weekDecides,
    planOn: (date) => statements.weekPlanOn(schedule, date),
    cancelTickets: change.cancelTickets,
  });
  for (const step of statements.replaceWeeklyHours(db, schedule)) batch.add(step);
  const weekPlan = (date: Sql) => sql`(CASE WHEN ${statements.weekDecides(date)} THEN ${statements.weekPlanOn(schedule, date)} END)`;
  tickets.guardLimits(batch, weekPlan, change.today);
  await ticketsPart.settle(batch.run());
}

/**
 * Sets a date's exception; true when it replaced one. A closure, or moved
 * hours or slots, under valid general tickets is refused (409) unless
 * `cancelTickets`, which cancels them in the same batch; a limit below what
 * is taken is refused (409 capacity-below-sold).
 */
export async function setHoursException(
  db: Db,
  date: IsoDate,
  plan: DayPlan | null,
  reason: string | null,
  change: HoursChange,
  tickets: HoursTickets,
): Promise<{ replaced: boolean }> {
  const batch = new Batch(db);
  const ticketsPart = tickets.follow(batch, {
    kind: "day-changed",
    today: change.today,
    date,
    plan: statements.planValue(plan),
    cancelTickets: change.cancelTickets,
  });
  const existed = batch.add(statements.exceptionExists(db, date));
  batch.add(statements.upsertException(db, date, plan, reason));
  if (date >= change.today) tickets.guardLimits(batch, () => statements.planValue(plan), date, date);
  await ticketsPart.settle(batch.run());
  return { replaced: existed.value };
}

/**
 * Removes a date's exception; false when there was none. The week decides
 * the day again: when that closes it or moves its slots under valid general
 * tickets, or sets a limit below what is taken, it is refused (409); change
 * the exception with cancelTickets first.
 */
export async function clearHoursException(db: Db, date: IsoDate, today: IsoDate, tickets: HoursTickets): Promise<boolean> {
  const batch = new Batch(db);
  const ticketsPart = tickets.follow(batch, {
    kind: "day-changed",
    today,
    date,
    plan: statements.storedWeekPlanOn(sql`${date}`),
    cancelTickets: false,
  });
  const removed = batch.add(statements.deleteException(db, date));
  if (date >= today) tickets.guardLimits(batch, statements.storedWeekPlanOn, date, date);
  await ticketsPart.settle(batch.run());
  return removed.value;
}
