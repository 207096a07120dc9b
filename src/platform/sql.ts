// SQL pieces every feature's statements share. Statements are sql-template-tag
// templates: an interpolated value is bound, an interpolated `Sql` is spliced in.
import sql, { raw, type Sql } from "sql-template-tag";
import type { MuseumNow } from "./dates";

// The form of every timestamp column: ISO 8601 in UTC with milliseconds
// (`2026-05-01T12:00:00.000Z`), the same text `Date#toISOString` writes, so
// that timestamps written by SQL and by JavaScript compare as text.
const ISO_TIMESTAMP = "'%Y-%m-%dT%H:%M:%fZ'";

/** The current time as a timestamp column holds it. */
export const SQL_NOW: Sql = raw(`strftime(${ISO_TIMESTAMP}, 'now')`);

/** An amount in cents (an SQL expression) as the API shows it, a JSON number: 2500 → 25, 2550 → 25.5. */
export function sqlAmount(cents: Sql): Sql {
  return sql`(CASE WHEN ${cents} % 100 = 0 THEN ${cents} / 100 ELSE ${cents} / 100.0 END)`;
}

/** The timestamp `at` (an SQL expression, `'now'` for the current time) moved by `seconds` (a whole number, bound; negative: earlier). */
export function sqlShiftedSeconds(at: Sql, seconds: number): Sql {
  return sql`strftime(${raw(ISO_TIMESTAMP)}, ${at}, ${`${seconds >= 0 ? "+" : ""}${seconds} seconds`})`;
}

/** The current time moved by `seconds` (a whole number, bound; negative: earlier). */
export function sqlNowShiftedSeconds(seconds: number): Sql {
  return sqlShiftedSeconds(raw("'now'"), seconds);
}

/**
 * The instant (as a timestamp column holds it) at which the museum's clock
 * reads `minutes` (an SQL number; NULL gives NULL) past the start of `date`
 * (an SQL date), at the museum's offset from UTC at `now`: how a time of the
 * museum's day is compared with the database's clock. A change of offset
 * between now and then (a summer-time night) is not seen: a hold's cap, what
 * this serves, only matters within the hour ahead.
 */
export function sqlMuseumInstant(date: Sql, minutes: Sql, now: MuseumNow): Sql {
  return sql`strftime(${raw(ISO_TIMESTAMP)}, ${date}, (${minutes} - ${now.utcOffsetMinutes}) || ' minutes')`;
}
