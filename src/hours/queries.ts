import type { BatchRunner, Db } from "../env";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW } from "../platform/sql";
import type { Calendar, HoursException, OpeningHours, WeeklySchedule } from "./calendar";

type WeeklyRow = { day_of_week: number; time_open: string; time_close: string };
type ExceptionRow = { date: string; time_open: string | null; time_close: string | null; reason: string | null };

function toException(row: ExceptionRow): HoursException {
  return {
    date: row.date,
    hours: row.time_open && row.time_close ? { timeOpen: row.time_open, timeClose: row.time_close } : null,
    reason: row.reason,
  };
}

const SELECT_WEEKLY = "SELECT day_of_week, time_open, time_close FROM museum_weekly_hours";
const SELECT_EXCEPTIONS = `SELECT date, time_open, time_close, reason FROM museum_hours_exceptions
  WHERE date BETWEEN ?1 AND ?2 ORDER BY date`;

function toWeeklySchedule(rows: WeeklyRow[]): WeeklySchedule {
  const schedule: WeeklySchedule = {};
  for (const row of rows) schedule[row.day_of_week] = { timeOpen: row.time_open, timeClose: row.time_close };
  return schedule;
}

/** The weekly schedule and the exceptions in [from, to], in one round trip. */
export async function loadCalendar(db: Db, from: IsoDate, to: IsoDate): Promise<Calendar> {
  const [weekly, exceptions] = await db.batch([
    db.prepare(SELECT_WEEKLY),
    db.prepare(SELECT_EXCEPTIONS).bind(from, to),
  ]);
  return {
    weekly: toWeeklySchedule(weekly!.results as WeeklyRow[]),
    exceptions: new Map((exceptions!.results as ExceptionRow[]).map((row) => [row.date, toException(row)])),
  };
}

export async function readHoursExceptions(db: Db, from: IsoDate, to: IsoDate): Promise<HoursException[]> {
  const { results } = await db.prepare(SELECT_EXCEPTIONS).bind(from, to).all<ExceptionRow>();
  return results.map(toException);
}

export async function readWeeklySchedule(db: Db): Promise<WeeklySchedule> {
  const { results } = await db.prepare(SELECT_WEEKLY).all<WeeklyRow>();
  return toWeeklySchedule(results);
}

/** Replaces the whole week in one atomic batch. */
export async function writeWeeklySchedule(db: Db, schedule: WeeklySchedule): Promise<void> {
  const rows = Object.entries(schedule).flatMap(([day, hours]) =>
    hours ? [{ day: Number(day), open: hours.timeOpen, close: hours.timeClose }] : [],
  );
  await db.batch([
    db.prepare("DELETE FROM museum_weekly_hours"),
    db
      .prepare(
        `INSERT INTO museum_weekly_hours (day_of_week, time_open, time_close)
         SELECT value ->> 'day', value ->> 'open', value ->> 'close' FROM json_each(?1)`,
      )
      .bind(JSON.stringify(rows)),
  ]);
}

/** Sets the exception for a date; true when it replaced an existing one. */
export async function upsertHoursException(
  db: Db,
  date: IsoDate,
  hours: OpeningHours | null,
  reason: string | null,
  runBatch: BatchRunner = (statements) => db.batch(statements),
): Promise<{ replaced: boolean }> {
  const [existed] = await runBatch([
    db.prepare("SELECT 1 AS found FROM museum_hours_exceptions WHERE date = ?1").bind(date),
    db
      .prepare(
        `INSERT INTO museum_hours_exceptions (date, time_open, time_close, reason) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (date) DO UPDATE SET time_open = excluded.time_open, time_close = excluded.time_close,
           reason = excluded.reason, updated_at = ${SQL_NOW}`,
      )
      .bind(date, hours?.timeOpen ?? null, hours?.timeClose ?? null, reason),
  ]);
  return { replaced: existed!.results.length > 0 };
}

/** Removes the exception for a date; false when there was none. */
export async function removeHoursException(
  db: Db,
  date: IsoDate,
  runBatch: BatchRunner = (statements) => db.batch(statements),
): Promise<boolean> {
  const [result] = await runBatch([db.prepare("DELETE FROM museum_hours_exceptions WHERE date = ?1").bind(date)]);
  return result!.meta.changes > 0;
}
