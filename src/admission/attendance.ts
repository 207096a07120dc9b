// A day's attendance: sold, admitted and cancelled tickets, general and per event, and the offline conflicts.
import { Batch, type Db } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import type { AttendanceSummary } from "./schemas";
import { selectAttendance } from "../tickets/statements";
import { countConflicts } from "./statements";

/** Sold, admitted and cancelled tickets for `date`, general and per event, and its conflicts. One round trip. */
export async function attendanceOn(db: Db, date: IsoDate): Promise<AttendanceSummary> {
  const batch = new Batch(db);
  const attendance = batch.add(selectAttendance(db, date));
  const conflicts = batch.add(countConflicts(db, date));
  await batch.run();
  const summary: AttendanceSummary = { date, general: { sold: 0, admitted: 0, cancelled: 0 }, events: [], conflicts: conflicts.value };
  for (const row of attendance.value) {
    const counts = { sold: row.sold, admitted: row.admitted, cancelled: row.cancelled };
    if (row.event_id === null) summary.general = counts;
    else summary.events.push({ eventId: row.event_id, name: row.event_name ?? "", ...counts });
  }
  return summary;
}
