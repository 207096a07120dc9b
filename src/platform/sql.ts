// The form of every timestamp column: ISO 8601 in UTC with milliseconds
// (`2026-05-01T12:00:00.000Z`), the same text `Date#toISOString` writes, so
// that timestamps written by SQL and by JavaScript compare as text.
const ISO_TIMESTAMP = "'%Y-%m-%dT%H:%M:%fZ'";

/** SQL for the current time as a timestamp column holds it. */
export const SQL_NOW = `strftime(${ISO_TIMESTAMP}, 'now')`;

/** SQL for the current time moved by an SQLite date modifier (an SQL expression, e.g. `'+' || ?1 || ' seconds'`). */
export function sqlNowShifted(modifier: string): string {
  return `strftime(${ISO_TIMESTAMP}, 'now', ${modifier})`;
}
