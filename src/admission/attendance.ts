// A day's attendance: sold, admitted and cancelled tickets, general and per
// event, each also per category, and the offline conflicts.
import { Batch, type Db } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import type { AttendanceCounts, AttendanceSummary } from "./schemas";
import { selectAttendance } from "../tickets/statements/admission";
import { countConflicts } from "./statements";

type Counted = AttendanceCounts & { byCategory: Record<string, AttendanceCounts> };

const none = (): Counted => ({ sold: 0, admitted: 0, cancelled: 0, byCategory: {} });

/** Adds one category's counts to a total and to its byCategory. */
function add(total: Counted, category: string, counts: AttendanceCounts): void {
  total.sold += counts.sold;
  total.admitted += counts.admitted;
  total.cancelled += counts.cancelled;
  total.byCategory[category] = counts;
}

/** Sold, admitted and cancelled tickets for `date`, general and per event, each per category, and its conflicts. One round trip. */
export async function attendanceOn(db: Db, date: IsoDate): Promise<AttendanceSummary> {
  const batch = new Batch(db);
  const attendance = batch.add(selectAttendance(db, date));
  const conflicts = batch.add(countConflicts(db, date));
  await batch.run();
  const general = none();
  const events = new Map<string, Counted & { eventId: string; name: string }>();
  for (const row of attendance.value) {
    const counts = { sold: row.sold, admitted: row.admitted, cancelled: row.cancelled };
    if (row.event_id === null) {
      add(general, row.category, counts);
      continue;
    }
    let event = events.get(row.event_id);
    if (!event) events.set(row.event_id, (event = { eventId: row.event_id, name: row.event_name ?? "", ...none() }));
    add(event, row.category, counts);
  }
  return { date, general, events: [...events.values()], conflicts: conflicts.value };
}
