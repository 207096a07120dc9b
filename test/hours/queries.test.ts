// Data-access tests: the query functions of src/hours/queries.ts against the
// test D1 database (real migrations, no mocks).
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hoursOn, type OpeningHours, type WeeklySchedule } from "../../src/hours/calendar";
import {
  removeHoursException,
  readWeeklySchedule,
  loadCalendar,
  writeWeeklySchedule,
  upsertHoursException,
} from "../../src/hours/queries";
import { museumOpenOnSql } from "../../src/hours/open-day";
import { addDays } from "../../src/platform/dates";

// A year no other test touches.
const FIRST = "3100-01-01";
const LAST = "3100-12-31";
const DAYS = Array.from({ length: 365 }, (_, i) => addDays(FIRST, i));

const hours: fc.Arbitrary<OpeningHours> = fc.constantFrom(
  { timeOpen: "09:00", timeClose: "18:00" },
  { timeOpen: "12:00", timeClose: "15:00" },
);
const weeklySchedule = fc.dictionary(
  fc.integer({ min: 0, max: 6 }).map(String),
  hours,
) as fc.Arbitrary<WeeklySchedule>;
const exceptions = fc.uniqueArray(
  fc.record({ date: fc.constantFrom(...DAYS), hours: fc.option(hours, { nil: null }) }),
  { selector: (exception) => exception.date, maxLength: 12 },
);

/** Which of DAYS the SQL condition calls open, in one query. */
async function openBySql(): Promise<string[]> {
  const { results } = await env.DB.prepare(
    `SELECT value AS day FROM json_each(?1) WHERE ${museumOpenOnSql("value")} ORDER BY value`,
  )
    .bind(JSON.stringify(DAYS))
    .all<{ day: string }>();
  return results.map((row) => row.day);
}

describe("museumOpenOnSql", () => {
  it("agrees with hoursOn for every day of a year, whatever the schedule and exceptions", async () => {
    const original = await readWeeklySchedule(env.DB);
    let recorded: string[] = [];
    const clearExceptions = async () => {
      for (const day of recorded) await removeHoursException(env.DB, day);
      recorded = [];
    };
    try {
      await fc.assert(
        fc.asyncProperty(weeklySchedule, exceptions, async (week, dated) => {
          await writeWeeklySchedule(env.DB, week);
          await clearExceptions();
          for (const exception of dated) {
            await upsertHoursException(env.DB, exception.date, exception.hours, null);
            recorded.push(exception.date);
          }

          const calendar = await loadCalendar(env.DB, FIRST, LAST);
          expect(await openBySql()).toEqual(DAYS.filter((day) => hoursOn(calendar, day) !== null));
        }),
        { seed: 3100, numRuns: 15 },
      );
    } finally {
      await writeWeeklySchedule(env.DB, original);
      await clearExceptions();
    }
  });
});
