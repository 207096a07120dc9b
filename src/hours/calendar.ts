import { addDays, dayOfWeek, type IsoDate } from "../platform/dates";

export type OpeningHours = { timeOpen: string; timeClose: string };

/**
 * An open day: its hours and its optional limits (docs/capacity.md): general
 * tickets for the day (`capacity`), and timed entry (slots of
 * `entrySlotMinutes` from `timeOpen`, each ending by `timeClose`, at most
 * `slotCapacity` tickets each). The two timed-entry fields come together.
 */
export type DayPlan = OpeningHours & { capacity?: number; entrySlotMinutes?: number; slotCapacity?: number };

/** Day plans by day of week (0 = Sunday); a missing day is closed. */
export type WeeklySchedule = Partial<Record<number, DayPlan>>;

/** A dated exception: special hours (with their own limits), or `null` for a closure. */
export type HoursException = { date: IsoDate; hours: DayPlan | null; reason: string | null };

/** Minutes since midnight of an `HH:mm` time. */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** The `HH:mm` time `minutes` after midnight. */
export function timeOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

/** The entry slots' start times of a timed day, in order (none for a day without timed entry). */
export function slotStarts(plan: DayPlan): string[] {
  if (plan.entrySlotMinutes === undefined) return [];
  const starts: string[] = [];
  const close = minutesOf(plan.timeClose);
  for (let start = minutesOf(plan.timeOpen); start + plan.entrySlotMinutes <= close; start += plan.entrySlotMinutes) {
    starts.push(timeOf(start));
  }
  return starts;
}

/** When the slot starting at `entryTime` ends. */
export function slotEnd(plan: DayPlan, entryTime: string): string {
  return timeOf(minutesOf(entryTime) + (plan.entrySlotMinutes ?? 0));
}

export type Calendar = {
  weekly: WeeklySchedule;
  exceptions: ReadonlyMap<IsoDate, HoursException>;
};

/** How far ahead hours are published, and tickets sold: a year from today. */
export const PUBLISHED_DAYS_AHEAD = 365;

/**
 * The museum's plan for a date, or null when it is closed.
 * @public (the rule test/hours/statements.test.ts holds `dayPlanOn` to)
 */
export function hoursOn(calendar: Calendar, date: IsoDate): DayPlan | null {
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
    else days.push({ date, timeOpen: hours.timeOpen, timeClose: hours.timeClose });
  }
  return days;
}
