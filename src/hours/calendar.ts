import { addDays, dayOfWeek, type IsoDate } from "../platform/dates";

export type OpeningHours = { timeOpen: string; timeClose: string };

/** Opening hours by day of week (0 = Sunday); a missing day is closed. */
export type WeeklySchedule = Partial<Record<number, OpeningHours>>;

/** A dated exception: special hours, or `null` for a closure. */
export type HoursException = { date: IsoDate; hours: OpeningHours | null; reason: string | null };

export type Calendar = {
  weekly: WeeklySchedule;
  exceptions: ReadonlyMap<IsoDate, HoursException>;
};

/** How far ahead hours are published, and tickets sold: a year from today. */
export const PUBLISHED_DAYS_AHEAD = 365;

/** The museum's hours on a date, or null when it is closed. */
export function hoursOn(calendar: Calendar, date: IsoDate): OpeningHours | null {
  const exception = calendar.exceptions.get(date);
  if (exception) return exception.hours;
  return calendar.weekly[dayOfWeek(date)] ?? null;
}

/**
 * The open days in [from, to], ascending, skipping the first `skip` of them
 * and returning at most `take`.
 */
export function openDays(
  calendar: Calendar,
  range: { from: IsoDate; to: IsoDate },
  page: { skip: number; take: number },
): (OpeningHours & { date: IsoDate })[] {
  const days: (OpeningHours & { date: IsoDate })[] = [];
  let skipped = 0;
  for (let date = range.from; date <= range.to && days.length < page.take; date = addDays(date, 1)) {
    const hours = hoursOn(calendar, date);
    if (!hours) continue;
    if (skipped < page.skip) skipped += 1;
    else days.push({ date, ...hours });
  }
  return days;
}
