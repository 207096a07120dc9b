// Calendar dates as the API writes them (YYYY-MM-DD), in the museum's time zone.
import { museumVars } from "./wrangler.mjs";

const DAY_MS = 86_400_000;

/** `date` plus `days` (negative: minus), as YYYY-MM-DD. */
export function addDays(date, days) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from, to) {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** Day of the week of a YYYY-MM-DD date, 0 = Sunday. */
export function weekday(date) {
  return new Date(Date.parse(`${date}T00:00:00Z`)).getUTCDay();
}

/** Today's date (YYYY-MM-DD) in an IANA time zone. */
export function todayIn(timeZone) {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
}

/** The museum's time zone: MUSEUM_TIMEZONE of wrangler.toml's [vars]. */
export async function museumTimeZone() {
  const timeZone = (await museumVars()).MUSEUM_TIMEZONE;
  if (typeof timeZone !== "string") throw new Error("wrangler.toml [vars] has no MUSEUM_TIMEZONE");
  return timeZone;
}

/** Today in the museum's time zone. */
export async function museumToday() {
  return todayIn(await museumTimeZone());
}
