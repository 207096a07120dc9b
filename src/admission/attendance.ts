// A day's attendance: sold, admitted and cancelled tickets, general and per event.
import { type Db, runStep } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import type { AttendanceSummary } from "./schemas";
import { selectAttendance } from "../tickets/statements";

/** Sold, admitted and cancelled tickets for `date`, general and per event. One query. */
export async function attendanceOn(db: Db, date: IsoDate): Promise<AttendanceSummary> {
  const summary: AttendanceSummary = { date, general: { sold: 0, admitted: 0, cancelled: 0 }, events: [] };
  for (const row of await runStep(selectAttendance(db, date))) {
    const counts = { sold: row.sold, admitted: row.admitted, cancelled: row.cancelled };
    if (row.event_id === null) summary.general = counts;
    else summary.events.push({ eventId: row.event_id, name: row.event_name ?? "", ...counts });
  }
  return summary;
}
