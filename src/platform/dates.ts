import { museumNow } from "museum-api-client/gate";

/** A calendar date, `YYYY-MM-DD`. Lexical order is chronological order. */
export type IsoDate = string;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** True for a real calendar date in `YYYY-MM-DD` form (`2023-02-30` is not). */
export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999, which
  // refused real dates such as 0050-01-01.
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function toUtcMs(date: IsoDate): number {
  return Date.parse(`${date}T00:00:00Z`);
}

/** The last date `YYYY-MM-DD` can express. */
const LAST_DATE: IsoDate = "9999-12-31";

/**
 * The date `days` later (or earlier). Stops at LAST_DATE: past it there is no
 * `YYYY-MM-DD` form ("+010000-01-01" would sort before every real date).
 */
export function addDays(date: IsoDate, days: number): IsoDate {
  const ms = Math.min(toUtcMs(date) + days * DAY_MS, toUtcMs(LAST_DATE));
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The museum's date and its time of day (`HH:mm`) at one moment, in its time
 * zone, and how many minutes its clock is then ahead of UTC (negative west of
 * Greenwich): what turns a time of its day into an instant.
 */
export type MuseumNow = { today: IsoDate; time: string; utcOffsetMinutes: number };

let lastMuseumNow: { timeZone: string; minute: number; now: MuseumNow } | undefined;

/**
 * The museum's date, time and offset at `now`: the clock an offline gate
 * reads too (the typed client's `museumNow`), so the two cannot disagree.
 * They change only on a whole minute (every zone's offset today is whole
 * minutes), so the isolate reads them once a minute, not on every sale.
 */
export function museumNowIn(timeZone: string, now: Date = new Date()): MuseumNow {
  const minute = Math.floor(now.getTime() / 60_000);
  if (lastMuseumNow?.timeZone !== timeZone || lastMuseumNow.minute !== minute) {
    const { today, time } = museumNow(timeZone, now);
    // The museum's clock read as if it were UTC, less the minute it was read at.
    const utcOffsetMinutes = (Date.parse(`${today}T${time}:00Z`) - minute * 60_000) / 60_000;
    lastMuseumNow = { timeZone, minute, now: { today, time, utcOffsetMinutes } };
  }
  return { ...lastMuseumNow.now };
}
