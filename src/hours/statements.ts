// The hours feature's tables (museum_weekly_hours, museum_hours_exceptions):
// every statement on them, and the read fragments other features may put in theirs.
import sql, { join, raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW } from "../platform/sql";
import type { DayPlan, HoursException, WeeklySchedule } from "./calendar";

type PlanColumns = {
  time_open: string | null;
  time_close: string | null;
  capacity: number | null;
  entry_slot_minutes: number | null;
  slot_capacity: number | null;
};
type WeeklyRow = PlanColumns & { day_of_week: number };
type ExceptionRow = PlanColumns & { date: string; reason: string | null };

const PLAN_COLUMNS = sql`time_open, time_close, capacity, entry_slot_minutes, slot_capacity`;

/** A row's plan, or null for a closed day; limits that are not set are left out. */
function toPlan(row: PlanColumns): DayPlan | null {
  if (row.time_open === null || row.time_close === null) return null;
  return {
    timeOpen: row.time_open,
    timeClose: row.time_close,
    ...(row.capacity === null ? {} : { capacity: row.capacity }),
    ...(row.entry_slot_minutes === null ? {} : { entrySlotMinutes: row.entry_slot_minutes }),
    ...(row.slot_capacity === null ? {} : { slotCapacity: row.slot_capacity }),
  };
}

/** A plan as the table's columns, in their order. */
function planValues(plan: DayPlan | null) {
  return [
    plan?.timeOpen ?? null,
    plan?.timeClose ?? null,
    plan?.capacity ?? null,
    plan?.entrySlotMinutes ?? null,
    plan?.slotCapacity ?? null,
  ];
}

/** The weekly schedule. */
export function selectWeeklySchedule(db: Db): Step<WeeklySchedule> {
  return step(db, sql`SELECT day_of_week, ${PLAN_COLUMNS} FROM museum_weekly_hours`, (result) => {
    const schedule: WeeklySchedule = {};
    for (const row of read.rows<WeeklyRow>()(result)) schedule[row.day_of_week] = toPlan(row) ?? undefined;
    return schedule;
  });
}

/** The exceptions in [from, to], by date. */
export function selectExceptions(db: Db, from: IsoDate, to: IsoDate): Step<HoursException[]> {
  return step(
    db,
    sql`SELECT date, ${PLAN_COLUMNS}, reason FROM museum_hours_exceptions
         WHERE date BETWEEN ${from} AND ${to} ORDER BY date`,
    (result) =>
      read.rows<ExceptionRow>()(result).map((row) => ({ date: row.date, hours: toPlan(row), reason: row.reason })),
  );
}

/** The plans of a week as one JSON array indexed by day of week (0 = Sunday), `null` for a closed day. */
function weekJson(schedule: WeeklySchedule): string {
  return JSON.stringify(Array.from({ length: 7 }, (_, day) => schedule[day] ?? null));
}

/** The statements that replace the whole week. */
export function replaceWeeklyHours(db: Db, schedule: WeeklySchedule): Step<void>[] {
  return [
    step(db, sql`DELETE FROM museum_weekly_hours`, read.nothing),
    step(
      db,
      sql`INSERT INTO museum_weekly_hours (day_of_week, ${PLAN_COLUMNS})
          SELECT key, value ->> 'timeOpen', value ->> 'timeClose', value ->> 'capacity',
                 value ->> 'entrySlotMinutes', value ->> 'slotCapacity'
            FROM json_each(${weekJson(schedule)}) WHERE type = 'object'`,
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
export function upsertException(db: Db, date: IsoDate, hours: DayPlan | null, reason: string | null): Step<void> {
  return step(
    db,
    sql`INSERT INTO museum_hours_exceptions (date, ${PLAN_COLUMNS}, reason)
        VALUES (${date}, ${join(planValues(hours))}, ${reason})
        ON CONFLICT (date) DO UPDATE SET time_open = excluded.time_open, time_close = excluded.time_close,
          capacity = excluded.capacity, entry_slot_minutes = excluded.entry_slot_minutes,
          slot_capacity = excluded.slot_capacity, reason = excluded.reason, updated_at = ${SQL_NOW}`,
    read.nothing,
  );
}

/** Removes the exception for a date; reads whether there was one. */
export function deleteException(db: Db, date: IsoDate): Step<boolean> {
  return step(db, sql`DELETE FROM museum_hours_exceptions WHERE date = ${date}`, (result) => read.changes(result) > 0);
}

// The weekday of an SQL date expression, as museum_weekly_hours.day_of_week counts it (0 = Sunday).
const weekdayOf = (date: Sql) => sql`CAST(strftime('%w', ${date}) AS INTEGER)`;

// A plan row as JSON, in the shape of `DayPlan` (limits not set are JSON null).
const planJson = (row: Sql) => sql`json_object('timeOpen', ${row}.time_open, 'timeClose', ${row}.time_close,
  'capacity', ${row}.capacity, 'entrySlotMinutes', ${row}.entry_slot_minutes, 'slotCapacity', ${row}.slot_capacity)`;

/**
 * The museum's plan on `date` (an SQL expression) as JSON in the shape of
 * `DayPlan`, or NULL on a closed day. The date's exception decides when it
 * has one, else the weekly schedule: the rule of `hoursOn`, for a write that
 * checks the day in its own statement instead of reading the calendar first
 * (test/hours/statements.test.ts proves the two agree).
 */
export function dayPlanOn(date: Sql): Sql {
  return sql`(CASE WHEN EXISTS (SELECT 1 FROM museum_hours_exceptions x WHERE x.date = ${date})
    THEN (SELECT CASE WHEN x.time_open IS NULL THEN NULL ELSE ${planJson(raw("x"))} END
            FROM museum_hours_exceptions x WHERE x.date = ${date})
    ELSE ${storedWeekPlanOn(date)}
  END)`;
}

/**
 * The dates from `from` to `to` (none when `to` is earlier) and the museum's
 * plan on each (`dayPlanOn`), as the common table `plans(day, plan)` of a
 * `WITH RECURSIVE`: each day's plan read once, however often it is used.
 */
export function plansBetween(from: IsoDate, to: IsoDate): Sql {
  return sql`days(day) AS (SELECT ${from} WHERE ${from} <= ${to} UNION ALL SELECT date(day, '+1 day') FROM days WHERE day < ${to}),
    plans(day, plan) AS MATERIALIZED (SELECT day, ${dayPlanOn(raw("day"))} FROM days)`;
}

/** An open day: its plan and, on a timed day, its slot starts. */
export type OpenDay = { date: IsoDate; plan: DayPlan; entrySlots?: string[] };

/**
 * The open days in [from, to], ascending, skipping the first `skip` of them
 * and returning at most `take`; with `slots`, each with its slot starts.
 */
export function selectOpenDays(
  db: Db,
  range: { from: IsoDate; to: IsoDate },
  page: { skip: number; take: number; slots: boolean },
): Step<OpenDay[]> {
  const slots = page.slots ? sql`(SELECT json_group_array(entry_time) FROM ${slotStartsOf(raw("plan"))})` : sql`'[]'`;
  return step(
    db,
    sql`WITH RECURSIVE ${plansBetween(range.from, range.to)}
        SELECT day, plan, ${slots} AS entry_slots FROM plans WHERE plan IS NOT NULL
         ORDER BY day LIMIT ${page.take} OFFSET ${page.skip}`,
    (result) =>
      read.rows<{ day: IsoDate; plan: string; entry_slots: string }>()(result).map((row) => {
        const entrySlots = JSON.parse(row.entry_slots) as string[];
        return { date: row.day, plan: parsePlan(row.plan)!, ...(entrySlots.length > 0 ? { entrySlots } : {}) };
      }),
  );
}

/** The plan `schedule` gives `date` (an SQL expression) as JSON, or NULL when that weekday is closed. */
export function weekPlanOn(schedule: WeeklySchedule, date: Sql): Sql {
  return sql`json_extract(${weekJson(schedule)}, '$[' || ${weekdayOf(date)} || ']')`;
}

/** The plan the weekly schedule as stored gives `date` (an SQL expression), whatever its exception says. */
export function storedWeekPlanOn(date: Sql): Sql {
  return sql`(SELECT ${planJson(raw("w"))} FROM museum_weekly_hours w WHERE w.day_of_week = ${weekdayOf(date)})`;
}

/** True when the week decides the plan of `date` (an SQL expression): it has no exception. */
export function weekDecides(date: Sql): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM museum_hours_exceptions x WHERE x.date = ${date})`;
}

/** A plan as `dayPlanOn` gives it (JSON, NULL: closed), read as a row is: limits that are not set left out. */
export function parsePlan(json: string | null): DayPlan | null {
  if (json === null) return null;
  const plan = JSON.parse(json) as { [K in keyof DayPlan]-?: DayPlan[K] | null };
  return toPlan({
    time_open: plan.timeOpen,
    time_close: plan.timeClose,
    capacity: plan.capacity,
    entry_slot_minutes: plan.entrySlotMinutes,
    slot_capacity: plan.slotCapacity,
  });
}

/** A plan (JSON, as `dayPlanOn` gives it) as bound JSON, or NULL for a closed day. */
export function planValue(plan: DayPlan | null): Sql {
  return sql`${plan === null ? null : JSON.stringify(plan)}`;
}

/**
 * A field of a day plan (JSON, as `dayPlanOn` gives it), NULL when it is not
 * set: how other features read a plan, so the JSON keys are spelled here only.
 */
export function planField(plan: Sql, field: keyof DayPlan): Sql {
  return sql`(${plan} ->> ${raw(`'${field}'`)})`;
}

/** How many minutes past midnight `time` (an SQL expression, `HH:mm`) is. */
export function minutesPastMidnight(time: Sql): Sql {
  return sql`(CAST(substr(${time}, 1, 2) AS INTEGER) * 60 + CAST(substr(${time}, 4, 2) AS INTEGER))`;
}

/** The `HH:mm` time `minutes` (an SQL expression) past midnight. */
const timeAt = (minutes: Sql) => sql`printf('%02d:%02d', ${minutes} / 60, ${minutes} % 60)`;

/** True when `plan` (JSON, NULL: closed) has timed entry: its general tickets are sold for a slot. */
export function hasTimedEntry(plan: Sql): Sql {
  return sql`(${planField(plan, "entrySlotMinutes")} IS NOT NULL)`;
}

// The slot grid of a day (docs/capacity.md): slots of `entrySlotMinutes`
// from `timeOpen`, each ending by `timeClose`. Every answer that names slots
// (availability, a refusal, the gates' configuration) lists `slotStartsOf`,
// which walks the grid with the same two rules a sale checks an entry time
// by: `isSlotStartAt` and `slotEndAt`.

/** When the slot of `plan` starting `start` minutes past midnight ends (minutes past midnight). */
const slotEndAt = (plan: Sql, start: Sql) => sql`(${start} + ${planField(plan, "entrySlotMinutes")})`;

/** True when a slot of `plan` starts `start` minutes past midnight (SQL expressions). */
function isSlotStartAt(plan: Sql, start: Sql): Sql {
  const open = minutesPastMidnight(planField(plan, "timeOpen"));
  return sql`(${start} >= ${open} AND (${start} - ${open}) % ${planField(plan, "entrySlotMinutes")} = 0
    AND ${slotEndAt(plan, start)} <= ${minutesPastMidnight(planField(plan, "timeClose"))})`;
}

/** True when `entryTime` (an SQL expression, `HH:mm`) is a slot start of `plan` (JSON). */
export function isSlotStart(plan: Sql, entryTime: Sql): Sql {
  return isSlotStartAt(plan, minutesPastMidnight(entryTime));
}

/** The `HH:mm` time at which the slot of `plan` (JSON) starting at `entryTime` ends. */
export function slotEndOf(plan: Sql, entryTime: Sql): Sql {
  return timeAt(slotEndAt(plan, minutesPastMidnight(entryTime)));
}

/**
 * The slot starts of `plan` (a column or bound value holding JSON as
 * `dayPlanOn` gives it: it is read once a slot), in order, as a row source of
 * `entry_time` (`HH:mm`): none on a closed day or a day without timed entry.
 * The first slot starts at the opening, each next one where the one before
 * ends, while it is a slot start.
 */
export function slotStartsOf(plan: Sql): Sql {
  const open = minutesPastMidnight(planField(plan, "timeOpen"));
  const next = slotEndAt(plan, raw("start"));
  return sql`(WITH RECURSIVE slot(start) AS (
      SELECT ${open} WHERE ${isSlotStartAt(plan, open)}
      UNION ALL
      SELECT ${next} FROM slot WHERE ${isSlotStartAt(plan, next)})
    SELECT ${timeAt(raw("start"))} AS entry_time FROM slot)`;
}

/**
 * The entry time a general ticket starting at `startTime` (an SQL
 * expression, `HH:mm`; NULL: none) has on a day of `plan` (JSON): itself on
 * a timed day, none on an untimed one (where it must be the opening).
 */
export function entryTimeAt(plan: Sql, startTime: Sql): Sql {
  return sql`(CASE WHEN ${hasTimedEntry(plan)} THEN ${startTime} END)`;
}

/**
 * When general tickets with `entryTime` (an SQL expression, NULL for none;
 * null: tickets known to have none) stop being sold on a day of `plan`
 * (JSON): its closing time, or the end of the ticket's slot.
 */
export function salesEndOf(plan: Sql, entryTime: Sql | null): Sql {
  const closing = planField(plan, "timeClose");
  return entryTime === null ? closing : sql`(CASE WHEN ${entryTime} IS NULL THEN ${closing} ELSE ${slotEndOf(plan, entryTime)} END)`;
}

/**
 * True when a general ticket with `entryTime` (an SQL expression, NULL for
 * none) still has its place under `plan` (JSON, NULL: closed) and can be
 * admitted on its day: the day is open, it closes after the ticket's entry
 * time (the gate admits nobody from closing on, timed entry on or off) and,
 * on a timed day, the entry time is one of its slot starts. The one
 * statement of "a change must not strand sold tickets" (tickets' `strandedBy`).
 */
export function keepsEntry(plan: Sql, entryTime: Sql): Sql {
  return sql`(${plan} IS NOT NULL
    AND (${entryTime} IS NULL OR ${entryTime} < ${planField(plan, "timeClose")})
    AND (NOT ${hasTimedEntry(plan)} OR (${entryTime} IS NOT NULL AND ${isSlotStart(plan, entryTime)})))`;
}
