import type { IsoDate } from "../platform/dates";

type OpeningHours = { timeOpen: string; timeClose: string };

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

/** How far ahead hours are published, and tickets sold: a year from today. */
export const PUBLISHED_DAYS_AHEAD = 365;
