// Admission's statements on tickets: the judgement of a scan, the admitted
// mark, and a date's attendance.
import sql, { type Sql } from "sql-template-tag";
import { eventName } from "../../events/statements";
import { dayPlanOn, planField } from "../../hours/statements";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import type { TicketType } from "../schemas";

/**
 * A scan's moment, as SQL expressions (bound values online, an upload's JSON
 * fields offline): its instant (RFC 3339 UTC), the museum's date and time
 * (`HH:mm`) then, and the latest entry time a timed ticket is admitted at then.
 */
export type ScanMoment = { at: Sql; today: Sql; time: Sql; latestEntryTime: Sql };

/** What the gate finds admitting a ticket: `admittable`, or why not (docs/admission.md). */
export type AdmissionJudgement =
  | "admittable"
  | "ticket-cancelled"
  | "already-admitted"
  | "not-valid-today"
  | "too-early"
  | "too-late"
  | "cancelled-after-entry"
  | "invalid-ticket-code";

/**
 * The rules of admission, online and offline alike, for the ticket `t` at
 * `moment`, in the order the offline gate's `checkTicketCode` checks them
 * too (docs/admission.md; test/admission/gate-rules.test.ts holds the two
 * together): cancelled before the scan, already admitted, not for the scan's
 * day, a general ticket at or after its day's closing time, a timed ticket
 * before its entry window while its day has timed entry; a ticket cancelled
 * after the scan that was otherwise admittable was used, then refunded
 * (online the scan is now, so that never happens). Not genuine, whatever
 * else holds: a code naming a ticket held for an order (its hold live, run
 * out or released: never sold, it has no code), and a code of the earlier
 * kind (`legacyCode`, an SQL condition) naming a ticket not sold with one
 * (migrations/0020).
 */
function judgementOf(moment: ScanMoment, legacyCode: Sql): Sql {
  const plan = dayPlanOn(sql`t.ticket_date`);
  return sql`(CASE
    WHEN t.hold_until IS NOT NULL OR (${legacyCode} AND NOT t.sold_with_legacy_code) THEN 'invalid-ticket-code'
    WHEN t.cancelled_at IS NOT NULL AND t.cancelled_at <= ${moment.at} THEN 'ticket-cancelled'
    WHEN t.admitted_at IS NOT NULL THEN 'already-admitted'
    WHEN t.ticket_date <> ${moment.today} THEN 'not-valid-today'
    WHEN t.ticket_type = 'general' AND ${moment.time} >= ${planField(plan, "timeClose")} THEN 'too-late'
    WHEN t.entry_time IS NOT NULL AND t.entry_time > ${moment.latestEntryTime}
         AND ${planField(plan, "entrySlotMinutes")} IS NOT NULL THEN 'too-early'
    WHEN t.cancelled_at IS NOT NULL THEN 'cancelled-after-entry'
    ELSE 'admittable' END)`;
}

/**
 * The judgement of admitting the ticket `ticketId` (an SQL expression) at
 * `moment` by a code of the earlier kind or not (`legacyCode`, an SQL
 * condition); NULL when there is no such ticket.
 */
export function admissionJudgement(ticketId: Sql, moment: ScanMoment, legacyCode: Sql): Sql {
  return sql`(SELECT ${judgementOf(moment, legacyCode)} FROM tickets t WHERE t.ticket_id = ${ticketId})`;
}

/** The judgement of admitting the ticket `ticketId` at `moment` as it stands, and its day's closing time (null: no such ticket). */
export function selectAdmissionJudgement(
  db: Db,
  ticketId: string,
  moment: ScanMoment,
  legacyCode: Sql,
): Step<{ judgement: AdmissionJudgement; time_close: string | null } | null> {
  return step(
    db,
    sql`SELECT ${judgementOf(moment, legacyCode)} AS judgement, ${planField(dayPlanOn(sql`t.ticket_date`), "timeClose")} AS time_close
          FROM tickets t WHERE t.ticket_id = ${ticketId}`,
    read.first<{ judgement: AdmissionJudgement; time_close: string | null }>(),
  );
}

/** The date of the ticket `ticketId` (an SQL expression), NULL when there is no such ticket. */
export function ticketDateOf(ticketId: Sql): Sql {
  return sql`(SELECT t.ticket_date FROM tickets t WHERE t.ticket_id = ${ticketId})`;
}

/**
 * Marks admitted the tickets of `admissions` (a query of `ticket_id,
 * admitted_at` pairs: admissions just recorded) that are not yet: a ticket
 * is admitted at its admission's time, online or offline.
 */
export function markAdmittedBy(db: Db, admissions: Sql): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET admitted_at = a.admitted_at FROM (${admissions}) a
         WHERE tickets.ticket_id = a.ticket_id AND tickets.admitted_at IS NULL`,
    read.nothing,
  );
}

export type AttendanceRow = {
  ticket_type: TicketType;
  event_id: string | null;
  event_name: string | null;
  category: string;
  sold: number;
  admitted: number;
  cancelled: number;
};

/**
 * Tickets sold (confirmed: held ones, and holds that ran out or were
 * released, are not sold), admitted and cancelled for one date, per general
 * entry and per event, and within each per category. The grouping reads the
 * covering index tickets_by_date only (docs/performance.md); each event's
 * name is then one primary-key lookup. Exported for the query-plan test.
 * @internal (for tests)
 */
export function attendanceQuery(date: IsoDate): Sql {
  return sql`SELECT g.ticket_type, g.event_id, ${eventName(sql`g.event_id`)} AS event_name, g.category, g.sold, g.admitted, g.cancelled
     FROM (SELECT ticket_type, event_id, category, count(*) AS sold, count(admitted_at) AS admitted, count(cancelled_at) AS cancelled
             FROM tickets WHERE ticket_date = ${date} AND hold_until IS NULL
            GROUP BY ticket_type, event_id, category) g
    ORDER BY g.ticket_type DESC, event_name, g.event_id, g.category`;
}

export function selectAttendance(db: Db, date: IsoDate): Step<AttendanceRow[]> {
  return step(db, attendanceQuery(date), read.rows<AttendanceRow>());
}

