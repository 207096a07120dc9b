// What a ticket's state is, and a day's attendance: read models of the tickets feature.
import type { Db } from "../env";
import type { IsoDate } from "../platform/dates";
import { findTicketStatus, readAttendance, type TicketStatusRow } from "./admission-queries";
import type { AttendanceSummary, TicketStatus } from "./schemas";

/** What names a ticket in the API's answers about it (its status, its admission). */
export function ticketFacts(row: TicketStatusRow) {
  return {
    ticketId: row.ticket_id,
    ticketType: row.ticket_type,
    ticketDate: row.ticket_date,
    ...(row.event_id === null ? {} : { eventId: row.event_id }),
    ...(row.event_name === null ? {} : { eventName: row.event_name }),
  };
}

/** A ticket's status (cancelled, admitted or valid), or null for an unknown ticket. One round trip. */
export async function ticketStatus(db: Db, ticketId: string): Promise<TicketStatus | null> {
  const row = await findTicketStatus(db, ticketId);
  if (!row) return null;
  return {
    ...ticketFacts(row),
    status: row.cancelled_at !== null ? "cancelled" : row.admitted_at !== null ? "admitted" : "valid",
    ...(row.admitted_at === null ? {} : { admittedAt: row.admitted_at }),
    ...(row.cancelled_at === null ? {} : { cancelledAt: row.cancelled_at }),
  };
}

/** Sold, admitted and cancelled tickets for `date`, general and per event. One query. */
export async function attendanceOn(db: Db, date: IsoDate): Promise<AttendanceSummary> {
  const summary: AttendanceSummary = { date, general: { sold: 0, admitted: 0, cancelled: 0 }, events: [] };
  for (const row of await readAttendance(db, date)) {
    const counts = { sold: row.sold, admitted: row.admitted, cancelled: row.cancelled };
    if (row.event_id === null) summary.general = counts;
    else summary.events.push({ eventId: row.event_id, name: row.event_name ?? "", ...counts });
  }
  return summary;
}
