import type { Db } from "../env";
import type { IsoDate } from "../platform/dates";
import type { TicketType } from "./image/token";

/** A ticket's status facts, with its event's name. */
export type TicketStatusRow = {
  ticket_id: string;
  ticket_type: TicketType;
  ticket_date: string;
  event_id: string | null;
  event_name: string | null;
  cancelled_at: string | null;
  admitted_at: string | null;
};

/** A ticket as the admission batch finds it after its write: `admitted_at` is its admission's. */
export type AdmissionRow = TicketStatusRow & {
  admission_id: string | null;
  gate: string | null;
};

/**
 * Admits a ticket in one atomic batch (one round trip) and reads back how
 * things stand. The insert applies only to a valid ticket dated `today`;
 * UNIQUE (ticket_id) with ON CONFLICT DO NOTHING makes it succeed once per
 * ticket however many gates try at the same moment. The ticket row follows
 * in the same batch, and the read tells the caller whether `admissionId` is
 * the admission now on record. No row: no such ticket.
 */
export async function recordAdmission(
  db: Db,
  attempt: { admissionId: string; ticketId: string; today: IsoDate; gate: string; admittedAt: string },
): Promise<AdmissionRow | null> {
  const [, , outcome] = await db.batch([
    db
      .prepare(
        `INSERT INTO admissions (admission_id, ticket_id, admitted_at, gate)
         SELECT ?1, t.ticket_id, ?3, ?4 FROM tickets t
          WHERE t.ticket_id = ?2 AND t.ticket_date = ?5 AND t.cancelled_at IS NULL AND t.admitted_at IS NULL
         ON CONFLICT (ticket_id) DO NOTHING`,
      )
      .bind(attempt.admissionId, attempt.ticketId, attempt.admittedAt, attempt.gate, attempt.today),
    db
      .prepare(
        `UPDATE tickets SET admitted_at = ?3
          WHERE ticket_id = ?2 AND admitted_at IS NULL
            AND EXISTS (SELECT 1 FROM admissions WHERE admission_id = ?1)`,
      )
      .bind(attempt.admissionId, attempt.ticketId, attempt.admittedAt),
    db
      .prepare(
        `SELECT t.ticket_id, t.ticket_type, t.ticket_date, t.event_id, e.name AS event_name, t.cancelled_at,
                a.admission_id, a.admitted_at, a.gate
           FROM tickets t
           LEFT JOIN special_events e ON e.event_id = t.event_id
           LEFT JOIN admissions a ON a.ticket_id = t.ticket_id
          WHERE t.ticket_id = ?1`,
      )
      .bind(attempt.ticketId),
  ]);
  return (outcome!.results[0] as AdmissionRow | undefined) ?? null;
}

/** A ticket's status facts (never the buyer's contact details), one round trip. */
export function findTicketStatus(db: Db, ticketId: string): Promise<TicketStatusRow | null> {
  return db
    .prepare(
      `SELECT t.ticket_id, t.ticket_type, t.ticket_date, t.event_id, e.name AS event_name, t.cancelled_at, t.admitted_at
         FROM tickets t LEFT JOIN special_events e ON e.event_id = t.event_id
        WHERE t.ticket_id = ?1`,
    )
    .bind(ticketId)
    .first<TicketStatusRow>();
}

export type AttendanceRow = {
  ticket_type: TicketType;
  event_id: string | null;
  event_name: string | null;
  sold: number;
  admitted: number;
  cancelled: number;
};

/**
 * Tickets sold, admitted and cancelled for one date, per general entry and
 * per event. The grouping reads the covering index tickets_by_date only
 * (docs/performance.md); each event's name is then one primary-key lookup.
 * Exported for the query-plan test.
 */
export const ATTENDANCE_SQL = `SELECT g.ticket_type, g.event_id, e.name AS event_name, g.sold, g.admitted, g.cancelled
   FROM (SELECT ticket_type, event_id, count(*) AS sold, count(admitted_at) AS admitted, count(cancelled_at) AS cancelled
           FROM tickets WHERE ticket_date = ?1
          GROUP BY ticket_type, event_id) g
   LEFT JOIN special_events e ON e.event_id = g.event_id
  ORDER BY g.ticket_type DESC, e.name, g.event_id`;

export async function readAttendance(db: Db, date: IsoDate): Promise<AttendanceRow[]> {
  const { results } = await db.prepare(ATTENDANCE_SQL).bind(date).all<AttendanceRow>();
  return results;
}
