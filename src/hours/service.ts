// The hours feature's reads and writes. A change that can close a day runs in
// one batch with the tickets' part (sold general tickets follow a closure).
import { Batch, type Db, runStep } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { followTickets } from "../tickets/follow";
import type { Calendar, HoursException, OpeningHours, WeeklySchedule } from "./calendar";
import * as statements from "./statements";

/** The weekly schedule and the exceptions in [from, to], in one round trip. */
export async function loadCalendar(db: Db, from: IsoDate, to: IsoDate): Promise<Calendar> {
  const batch = new Batch(db);
  const weekly = batch.add(statements.selectWeeklySchedule(db));
  const exceptions = batch.add(statements.selectExceptions(db, from, to));
  await batch.run();
  return { weekly: weekly.value, exceptions: new Map(exceptions.value.map((e) => [e.date, e])) };
}

export function readHoursExceptions(db: Db, from: IsoDate, to: IsoDate): Promise<HoursException[]> {
  return runStep(statements.selectExceptions(db, from, to));
}

export function readWeeklySchedule(db: Db): Promise<WeeklySchedule> {
  return runStep(statements.selectWeeklySchedule(db));
}

/** Replaces the whole week in one atomic batch. */
export async function writeWeeklySchedule(db: Db, schedule: WeeklySchedule): Promise<void> {
  const batch = new Batch(db);
  for (const step of statements.replaceWeeklyHours(db, schedule)) batch.add(step);
  await batch.run();
}

/**
 * Sets a date's exception; true when it replaced one. A closure of a day with
 * valid general tickets is refused (409) unless `cancelTickets`, which
 * cancels them in the same batch.
 */
export async function setHoursException(
  db: Db,
  date: IsoDate,
  hours: OpeningHours | null,
  reason: string | null,
  cancelTickets: boolean,
): Promise<{ replaced: boolean }> {
  const batch = new Batch(db);
  const tickets = hours === null ? followTickets(batch, { kind: "day-closed", date, cancelTickets }) : null;
  const existed = batch.add(statements.exceptionExists(db, date));
  batch.add(statements.upsertException(db, date, hours, reason));
  await (tickets ? tickets.settle(batch.run()) : batch.run());
  return { replaced: existed.value };
}

/**
 * Removes a date's exception; false when there was none. When that closes
 * the day (special hours on a day the week keeps closed) and it has valid
 * general tickets, the database refuses it (409); close the day with
 * cancelTickets first.
 */
export async function clearHoursException(db: Db, date: IsoDate): Promise<boolean> {
  const batch = new Batch(db);
  const tickets = followTickets(batch, { kind: "day-closed", date, cancelTickets: false });
  const removed = batch.add(statements.deleteException(db, date));
  await tickets.settle(batch.run());
  return removed.value;
}
