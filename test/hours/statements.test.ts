// Data-access tests: the hours service and the fragments of
// src/hours/statements.ts against the test D1 database (real migrations, no
// mocks): a day's plan (`dayPlanOn`, read by every sale and every answer that
// names a day) and its slot grid (`slotStartsOf`, `isSlotStart`).
import { env } from "cloudflare:workers";
import fc from "fast-check";
import sql, { raw, type Sql } from "sql-template-tag";
import { describe, expect, it } from "vitest";
import type { DayPlan, WeeklySchedule } from "../../src/hours/calendar";
import { clearHoursException, readOpenDays, readWeeklySchedule, setHoursException, writeWeeklySchedule } from "../../src/hours/service";
import { dayPlanOn, isSlotStart, parsePlan, planValue, slotStartsOf } from "../../src/hours/statements";
import { addDays } from "../../src/platform/dates";
import { forgetTicketLookups } from "../../src/ticket-image";
import { ticketsFollowing } from "../../src/tickets/follow";

// A year no other test touches.
const FIRST = "3100-01-01";
const DAYS = Array.from({ length: 365 }, (_, i) => addDays(FIRST, i));
// The tickets' part of a change of the hours, as app.ts hands it to the hours.
const tickets = ticketsFollowing(forgetTicketLookups).hours;

const hours: fc.Arbitrary<DayPlan> = fc.constantFrom<DayPlan[]>(
  { timeOpen: "09:00", timeClose: "18:00" },
  { timeOpen: "12:00", timeClose: "15:00", capacity: 7 },
  { timeOpen: "10:00", timeClose: "12:00", entrySlotMinutes: 30, slotCapacity: 5 },
  { timeOpen: "10:00", timeClose: "16:00", capacity: 50, entrySlotMinutes: 60, slotCapacity: 10 },
);
const weeklySchedule = fc.dictionary(
  fc.integer({ min: 0, max: 6 }).map(String),
  hours,
) as fc.Arbitrary<WeeklySchedule>;
const exceptions = fc.uniqueArray(
  fc.record({ date: fc.constantFrom(...DAYS), hours: fc.option(hours, { nil: null }) }),
  { selector: (exception) => exception.date, maxLength: 12 },
);

async function all<Row>(query: Sql): Promise<Row[]> {
  const { results } = await env.DB.prepare(query.sql)
    .bind(...query.values)
    .all<Row>();
  return results;
}

/** The plan of each of DAYS as the SQL fragment gives it (null: closed), in one query. */
async function plansBySql(): Promise<(DayPlan | null)[]> {
  const rows = await all<{ plan: string | null }>(sql`SELECT ${dayPlanOn(raw("value"))} AS plan FROM json_each(${JSON.stringify(DAYS)}) ORDER BY value`);
  return rows.map((row) => parsePlan(row.plan));
}

/** Sets the week and the exceptions of FIRST…LAST for `run`, then puts the week back and removes them. */
async function withHours(run: (set: (week: WeeklySchedule, dated: { date: string; hours: DayPlan | null }[]) => Promise<void>) => Promise<void>) {
  const original = await readWeeklySchedule(env.DB);
  let recorded: string[] = [];
  const clearExceptions = async () => {
    for (const day of recorded) await clearHoursException(env.DB, day, FIRST, tickets);
    recorded = [];
  };
  try {
    await run(async (week, dated) => {
      await writeWeeklySchedule(env.DB, week, { today: FIRST, cancelTickets: false }, tickets);
      await clearExceptions();
      for (const exception of dated) {
        await setHoursException(env.DB, exception.date, exception.hours, null, { today: FIRST, cancelTickets: false }, tickets);
        recorded.push(exception.date);
      }
    });
  } finally {
    await writeWeeklySchedule(env.DB, original, { today: FIRST, cancelTickets: false }, tickets);
    await clearExceptions();
  }
}

describe("dayPlanOn", () => {
  it("is the date's exception when it has one, else its weekday's plan, limits included, for every day of a year", async () => {
    await withHours((set) =>
      fc.assert(
        fc.asyncProperty(weeklySchedule, exceptions, async (week, dated) => {
          await set(week, dated);
          const expected = DAYS.map((day) => {
            const exception = dated.find((e) => e.date === day);
            return exception ? exception.hours : (week[new Date(`${day}T00:00:00Z`).getUTCDay()] ?? null);
          });
          expect(await plansBySql()).toEqual(expected);
        }),
        { seed: 3100, numRuns: 15 },
      ),
    );
  });
});

describe("readOpenDays", () => {
  const nineToSix = { timeOpen: "09:00", timeClose: "18:00" };
  const week: WeeklySchedule = { 1: nineToSix, 2: nineToSix, 3: nineToSix, 4: nineToSix, 5: { timeOpen: "10:00", timeClose: "16:00" } };
  // Friday 3100-12-21 closed, Saturday 3100-12-22 open with timed entry.
  const dated = [
    { date: "3100-12-21", hours: null },
    { date: "3100-12-22", hours: { timeOpen: "12:00", timeClose: "15:00", entrySlotMinutes: 60, slotCapacity: 9 } },
  ];

  it("lists open days only (an exception closes an open day or opens a closed one), skipping and taking open days", async () => {
    await withHours(async (set) => {
      await set(week, dated);
      const days = await readOpenDays(env.DB, { from: "3100-12-20", to: "3101-01-10" }, { skip: 1, take: 4, slots: false });
      expect(days.map((d) => d.date)).toEqual(["3100-12-22", "3100-12-24", "3100-12-25", "3100-12-26"]);
      expect(days.map((d) => d.plan)).toEqual([dated[1]!.hours, nineToSix, nineToSix, nineToSix]);
      expect(days.every((d) => d.entrySlots === undefined)).toBe(true);
    });
  });

  it("gives a timed day its slot starts when asked, and stops at the end of the range", async () => {
    await withHours(async (set) => {
      await set(week, dated);
      const days = await readOpenDays(env.DB, { from: "3100-12-21", to: "3100-12-24" }, { skip: 0, take: 10, slots: true });
      expect(days).toEqual([
        { date: "3100-12-22", plan: dated[1]!.hours, entrySlots: ["12:00", "13:00", "14:00"] },
        { date: "3100-12-24", plan: nineToSix },
      ]);
      expect(await readOpenDays(env.DB, { from: "3100-12-23", to: "3100-12-23" }, { skip: 0, take: 10, slots: true })).toEqual([]);
      // A range that ends before it starts has no day.
      expect(await readOpenDays(env.DB, { from: "3100-12-25", to: "3100-12-24" }, { skip: 0, take: 10, slots: true })).toEqual([]);
    });
  });
});

const timeOf = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** The slot starts of `plan` as the SQL gives them. */
async function slotStartsBySql(plan: DayPlan | null): Promise<string[]> {
  const rows = await all<{ entry_time: string }>(sql`SELECT entry_time FROM ${slotStartsOf(planValue(plan))}`);
  return rows.map((row) => row.entry_time);
}

describe("the slot grid: slotStartsOf and isSlotStart", () => {
  it("starts at the opening and every entrySlotMinutes after it, each slot ending by the closing (the contract's examples)", async () => {
    const slots = (timeOpen: string, timeClose: string, entrySlotMinutes: number) =>
      slotStartsBySql({ timeOpen, timeClose, entrySlotMinutes, slotCapacity: 1 });
    expect(await slots("09:00", "18:00", 30)).toEqual(Array.from({ length: 18 }, (_, i) => timeOf(9 * 60 + 30 * i)));
    expect(await slots("10:00", "11:50", 25)).toEqual(["10:00", "10:25", "10:50", "11:15"]);
    expect(await slots("10:00", "10:05", 5)).toEqual(["10:00"]);
    expect(await slots("00:00", "23:59", 240)).toEqual(["00:00", "04:00", "08:00", "12:00", "16:00"]);
  });

  it("has no slot on a closed day or a day without timed entry", async () => {
    expect(await slotStartsBySql(null)).toEqual([]);
    expect(await slotStartsBySql({ timeOpen: "09:00", timeClose: "18:00", capacity: 5 })).toEqual([]);
  });

  it("lists exactly the times isSlotStart accepts, whatever the hours and slot length", async () => {
    const minute = fc.integer({ min: 0, max: 24 * 60 - 1 });
    const plan = fc
      .record({ open: minute, length: fc.integer({ min: 1, max: 24 * 60 - 1 }), entrySlotMinutes: fc.integer({ min: 5, max: 240 }) })
      .filter(({ open, length }) => open + length < 24 * 60)
      .map(({ open, length, entrySlotMinutes }) => ({ timeOpen: timeOf(open), timeClose: timeOf(open + length), entrySlotMinutes, slotCapacity: 1 }));
    const everyMinute = JSON.stringify(Array.from({ length: 24 * 60 }, (_, m) => timeOf(m)));
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const open = Number(p.timeOpen.slice(0, 2)) * 60 + Number(p.timeOpen.slice(3));
        const close = Number(p.timeClose.slice(0, 2)) * 60 + Number(p.timeClose.slice(3));
        const expected = [];
        for (let start = open; start + p.entrySlotMinutes <= close; start += p.entrySlotMinutes) expected.push(timeOf(start));
        expect(await slotStartsBySql(p)).toEqual(expected);
        const accepted = await all<{ value: string }>(
          sql`SELECT value FROM json_each(${everyMinute}) WHERE ${isSlotStart(planValue(p), raw("value"))} ORDER BY value`,
        );
        expect(accepted.map((row) => row.value)).toEqual(expected);
      }),
      { seed: 39, numRuns: 60 },
    );
  });
});
