// What an offline gate syncs (docs/admission.md, "Gates that keep working
// offline"): the rules of the coming days, read in one round trip. The keys
// come from the Worker's secret (ticket-image), with no database read.
import { Batch, type Db } from "../platform/batch";
import { addDays, type IsoDate } from "../platform/dates";
import { selectCategories } from "../categories/statements";
import { selectOpenDays } from "../hours/statements";
import type { GateConfig } from "./schemas";

/** Today and the next 6 days. */
const GATE_DAYS = 7;

/** The gate's configuration from `today`: the time zone, the early-entry window, the categories and the open days. */
export async function gateConfigFrom(db: Db, today: IsoDate, rules: { timeZone: string; earlyMinutes: number }): Promise<GateConfig> {
  const batch = new Batch(db);
  const days = batch.add(selectOpenDays(db, { from: today, to: addDays(today, GATE_DAYS - 1) }, { skip: 0, take: GATE_DAYS, slots: true }));
  const categories = batch.add(selectCategories(db, false));
  await batch.run();
  return {
    timeZone: rules.timeZone,
    admissionEarlyMinutes: rules.earlyMinutes,
    categories: categories.value.map((row) => ({ categoryId: row.category_id, name: row.name })),
    days: days.value.map(({ date, plan, entrySlots }) => ({ date, timeOpen: plan.timeOpen, timeClose: plan.timeClose, ...(entrySlots ? { entrySlots } : {}) })),
  };
}
