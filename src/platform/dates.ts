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

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** The UTC offset of an IANA time zone at the instant `utcMs`, in minutes (east positive). */
function offsetMinutesAt(timeZone: string, utcMs: number): number {
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    offsetFormatters.set(timeZone, formatter);
  }
  const name = formatter.formatToParts(new Date(utcMs)).find((part) => part.type === "timeZoneName")?.value ?? "GMT";
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  return (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/** A local date and time in a time zone: the instant, and ISO 8601 with its offset (`2026-05-04T09:00:00-04:00`). */
export type ZonedDateTime = { utc: Date; iso: string };

/**
 * The instant a museum's wall clock shows `date` `time` (`HH:mm`) in
 * `timeZone`. A time a clock change skips is read with the offset before
 * it; one it repeats, as its first occurrence.
 */
export function zonedDateTime(timeZone: string, date: IsoDate, time: string): ZonedDateTime {
  const key = `${timeZone} ${date} ${time}`;
  let known = zonedTimes.get(key);
  if (!known) {
    known = zonedTimeOf(timeZone, date, time);
    if (zonedTimes.size >= ZONED_TIMES_KEPT) zonedTimes.clear();
    zonedTimes.set(key, known);
  }
  return { utc: new Date(known.utcMs), iso: known.iso };
}

/**
 * Local times already turned into instants: the answer depends on nothing
 * else, and reading a zone's offset through Intl costs more than the rest of
 * an OCTO booking's mapping. Bounded (emptied when full): a year of slots.
 */
const zonedTimes = new Map<string, { utcMs: number; iso: string }>();
const ZONED_TIMES_KEPT = 20_000;

function zonedTimeOf(timeZone: string, date: IsoDate, time: string): { utcMs: number; iso: string } {
  const wall = Date.parse(`${date}T${time}:00Z`);
  const before = offsetMinutesAt(timeZone, wall - 86_400_000 / 2);
  let utc = wall - before * 60_000;
  const after = offsetMinutesAt(timeZone, utc);
  if (after !== before && offsetMinutesAt(timeZone, wall - after * 60_000) === after) utc = wall - after * 60_000;
  const offset = (wall - utc) / 60_000;
  const sign = offset < 0 ? "-" : "+";
  const hhmm = `${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}:${String(Math.abs(offset) % 60).padStart(2, "0")}`;
  return { utcMs: utc, iso: `${date}T${time}:00${sign}${hhmm}` };
}

/** An instant as RFC 3339 UTC to the second (`2026-05-04T13:00:00Z`). */
export function utcSeconds(instant: Date): string {
  return `${instant.toISOString().slice(0, 19)}Z`;
}
