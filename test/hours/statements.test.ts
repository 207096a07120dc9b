// Data-access tests: the hours service and the fragments of
// src/hours/statements.ts against the test D1 database (real migrations, no mocks).
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DayPlan, hoursOn, type WeeklySchedule } from "../../src/hours/calendar";
import sql, { raw } from "sql-template-tag";
import { clearHoursException, loadCalendar, readWeeklySchedule, setHoursException, writeWeeklySchedule } from "../../src/hours/service";
import { dayPlanOn, parsePlan } from "../../src/hours/statements";
import { addDays } from "../../src/platform/dates";
import { forgetTicketLookups } from "../../src/ticket-image";
import { ticketsFollowing } from "../../src/tickets/follow";

// A year no other test touches.
const FIRST = "3100-01-01";
const LAST = "3100-12-31";
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

/** The plan of each of DAYS as the SQL fragment gives it (null: closed), in one query. */
async function plansBySql(): Promise<(DayPlan | null)[]> {
  const query = sql`SELECT ${dayPlanOn(raw("value"))} AS plan FROM json_each(${JSON.stringify(DAYS)}) ORDER BY value`;
  const { results } = await env.DB.prepare(query.sql)
    .bind(...query.values)
    .all<{ plan: string | null }>();
  return results.map((row) => parsePlan(row.plan));
}

describe("dayPlanOn", () => {
  it("gives hoursOn's plan, limits included, for every day of a year, whatever the schedule and exceptions", async () => {
    const original = await readWeeklySchedule(env.DB);
    let recorded: string[] = [];
    const clearExceptions = async () => {
      for (const day of recorded) await clearHoursException(env.DB, day, FIRST, tickets);
      recorded = [];
    };
    try {
      await fc.assert(
        fc.asyncProperty(weeklySchedule, exceptions, async (week, dated) => {
          await writeWeeklySchedule(env.DB, week, { today: FIRST, cancelTickets: false }, tickets);
          await clearExceptions();
          for (const exception of dated) {
            await setHoursException(env.DB, exception.date, exception.hours, null, { today: FIRST, cancelTickets: false }, tickets);
            recorded.push(exception.date);
          }

          const calendar = await loadCalendar(env.DB, FIRST, LAST);
          expect(await plansBySql()).toEqual(DAYS.map((day) => hoursOn(calendar, day)));
        }),
        { seed: 3100, numRuns: 15 },
      );
    } finally {
      await writeWeeklySchedule(env.DB, original, { today: FIRST, cancelTickets: false }, tickets);
      await clearExceptions();
    }
  });
});
