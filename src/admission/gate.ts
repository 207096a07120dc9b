// What an offline gate syncs (docs/admission.md, "Gates that keep working
// offline"): the rules of the coming days, read in one round trip. The keys
// come from the Worker's secret (ticket-image), with no database read.
import { Batch, type Db } from "../platform/batch";
import { addDays, type IsoDate } from "../platform/dates";
import { selectCategories } from "../categories/statements";
import { hoursOn, slotStarts } from "../hours/calendar";
import { selectExceptions, selectWeeklySchedule } from "../hours/statements";
import type { GateConfig } from "./schemas";

/** Today and the next 6 days. */
const GATE_DAYS = 7;

/** The gate's configuration from `today`: the time zone, the early-entry window, the categories and the open days. */
export async function gateConfigFrom(db: Db, today: IsoDate, rules: { timeZone: string; earlyMinutes: number }): Promise<GateConfig> {
  const last = addDays(today, GATE_DAYS - 1);
  const batch = new Batch(db);
  const weekly = batch.add(selectWeeklySchedule(db));
  const exceptions = batch.add(selectExceptions(db, today, last));
  const categories = batch.add(selectCategories(db, false));
  await batch.run();
  const calendar = { weekly: weekly.value, exceptions: new Map(exceptions.value.map((e) => [e.date, e])) };
  const days: GateConfig["days"] = [];
  for (let date = today; date <= last; date = addDays(date, 1)) {
    const plan = hoursOn(calendar, date);
    if (!plan) continue;
    const entrySlots = slotStarts(plan);
    days.push({ date, timeOpen: plan.timeOpen, timeClose: plan.timeClose, ...(entrySlots.length > 0 ? { entrySlots } : {}) });
  }
  return {
    timeZone: rules.timeZone,
    admissionEarlyMinutes: rules.earlyMinutes,
    categories: categories.value.map((row) => ({ categoryId: row.category_id, name: row.name })),
    days,
  };
}
