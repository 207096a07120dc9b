// The hours feature's tables (museum_weekly_hours, museum_hours_exceptions):
// every statement on them, and the read fragments other features may put in theirs.
import sql, { type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW } from "../platform/sql";
import type { HoursException, OpeningHours, WeeklySchedule } from "./calendar";

type WeeklyRow = { day_of_week: number; time_open: string; time_close: string };
type ExceptionRow = { date: string; time_open: string | null; time_close: string | null; reason: string | null };

function toException(row: ExceptionRow): HoursException {
  return {
    date: row.date,
    hours: row.time_open && row.time_close ? { timeOpen: row.time_open, timeClose: row.time_close } : null,
    reason: row.reason,
  };
}

function toWeeklySchedule(rows: WeeklyRow[]): WeeklySchedule {
  const schedule: WeeklySchedule = {};
  for (const row of rows) schedule[row.day_of_week] = { timeOpen: row.time_open, timeClose: row.time_close };
  return schedule;
}

/** The weekly schedule. */
export function selectWeeklySchedule(db: Db): Step<WeeklySchedule> {
  return step(db, sql`SELECT day_of_week, time_open, time_close FROM museum_weekly_hours`, (result) =>
    toWeeklySchedule(read.rows<WeeklyRow>()(result)),
  );
}

/** The exceptions in [from, to], by date. */
export function selectExceptions(db: Db, from: IsoDate, to: IsoDate): Step<HoursException[]> {
  return step(
    db,
    sql`SELECT date, time_open, time_close, reason FROM museum_hours_exceptions
         WHERE date BETWEEN ${from} AND ${to} ORDER BY date`,
    (result) => read.rows<ExceptionRow>()(result).map(toException),
  );
}

/** The statements that replace the whole week. */
export function replaceWeeklyHours(db: Db, schedule: WeeklySchedule): Step<void>[] {
  const rows = Object.entries(schedule).flatMap(([day, hours]) =>
    hours ? [{ day: Number(day), open: hours.timeOpen, close: hours.timeClose }] : [],
  );
  return [
    step(db, sql`DELETE FROM museum_weekly_hours`, read.nothing),
    step(
      db,
      sql`INSERT INTO museum_weekly_hours (day_of_week, time_open, time_close)
          SELECT value ->> 'day', value ->> 'open', value ->> 'close' FROM json_each(${JSON.stringify(rows)})`,
      read.nothing,
    ),
  ];
}

/** Whether `date` has an exception (read before it is set, in the same batch). */
export function exceptionExists(db: Db, date: IsoDate): Step<boolean> {
  return step(
    db,
    sql`SELECT 1 AS found FROM museum_hours_exceptions WHERE date = ${date}`,
    (result) => read.first<{ found: number }>()(result) !== null,
  );
}

/** Sets the exception for a date (special hours, or `null`: closed). */
export function upsertException(db: Db, date: IsoDate, hours: OpeningHours | null, reason: string | null): Step<void> {
  return step(
    db,
    sql`INSERT INTO museum_hours_exceptions (date, time_open, time_close, reason)
        VALUES (${date}, ${hours?.timeOpen ?? null}, ${hours?.timeClose ?? null}, ${reason})
        ON CONFLICT (date) DO UPDATE SET time_open = excluded.time_open, time_close = excluded.time_close,
          reason = excluded.reason, updated_at = ${SQL_NOW}`,
    read.nothing,
  );
}

/** Removes the exception for a date; reads whether there was one. */
export function deleteException(db: Db, date: IsoDate): Step<boolean> {
  return step(db, sql`DELETE FROM museum_hours_exceptions WHERE date = ${date}`, (result) => read.changes(result) > 0);
}

// The weekday of an SQL date expression, as museum_weekly_hours.day_of_week counts it (0 = Sunday).
const weekdayOf = (date: Sql) => sql`CAST(strftime('%w', ${date}) AS INTEGER)`;

/**
 * True when the museum is open on `date` (an SQL expression). The date's
 * exception decides when it has one, else the weekly schedule: the rule of
 * `hoursOn`, for a write that checks the day in its own statement instead of
 * reading the calendar first (test/hours/statements.test.ts proves the two agree).
 */
export function museumOpenOn(date: Sql): Sql {
  return sql`COALESCE(
    (SELECT x.time_open IS NOT NULL FROM museum_hours_exceptions x WHERE x.date = ${date}),
    EXISTS (SELECT 1 FROM museum_weekly_hours w WHERE w.day_of_week = ${weekdayOf(date)}))`;
}

/**
 * The time (`HH:mm`) the museum closes on `date` (an SQL expression), from
 * its exception or else the weekly schedule; NULL on a closed day.
 */
export function museumClosingTime(date: Sql): Sql {
  return sql`CASE WHEN EXISTS (SELECT 1 FROM museum_hours_exceptions x WHERE x.date = ${date})
    THEN (SELECT x.time_close FROM museum_hours_exceptions x WHERE x.date = ${date})
    ELSE (SELECT w.time_close FROM museum_weekly_hours w WHERE w.day_of_week = ${weekdayOf(date)})
  END`;
}
