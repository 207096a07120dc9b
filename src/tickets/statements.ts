// The tickets feature's tables (tickets, admissions): every statement on
// them, and the read fragments other features may put in theirs.
import sql, { type Sql } from "sql-template-tag";
import { activeEventOn, eventIsActive, eventName } from "../events/statements";
import { museumClosingTime, museumOpenOn } from "../hours/statements";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW } from "../platform/sql";
import type { Purchase, TicketType } from "./schemas";

export type NewTicket = Purchase & {
  ticketId: string;
  confirmationCode: string;
  /** General tickets; an event ticket is priced from its event at the moment of sale. */
  generalPriceCents: number;
  soldBy: string;
  /** The museum's date and time (`HH:mm`) now: today's general tickets are sold until closing time. */
  museumNow: { today: IsoDate; time: string };
};

const TICKET_COLUMNS = sql`(ticket_id, ticket_type, ticket_date, event_id, confirmation_code, buyer_email, buyer_phone, price_cents, sold_by)`;

/**
 * Writes a ticket only while the sale's condition holds, checked in the same
 * statement so that nothing can slip between a check and the write: a
 * general ticket when the museum is open that day and, for today, before its
 * closing time; an event ticket while the event is active and has that date,
 * at the event's price read in the same statement. `guard`, an SQL
 * condition, must hold too (an Idempotency-Key's claim). Reads whether it wrote.
 */
export function insertTicket(db: Db, ticket: NewTicket, guard: Sql = sql`1`): Step<boolean> {
  const buyer = sql`${ticket.confirmationCode}, ${ticket.email}, ${ticket.phone ?? null}`;
  const date = sql`${ticket.ticketDate}`;
  const query =
    ticket.ticketType === "general"
      ? sql`INSERT INTO tickets ${TICKET_COLUMNS}
            SELECT ${ticket.ticketId}, 'general', ${ticket.ticketDate}, NULL, ${buyer}, ${ticket.generalPriceCents}, ${ticket.soldBy}
             WHERE ${museumOpenOn(date)}
               AND (${date} > ${ticket.museumNow.today} OR ${ticket.museumNow.time} < ${museumClosingTime(date)})
               AND ${guard}`
      : sql`INSERT INTO tickets ${TICKET_COLUMNS}
            SELECT ${ticket.ticketId}, 'event', ev.event_date, ev.event_id, ${buyer}, ev.price_cents, ${ticket.soldBy}
              FROM (${activeEventOn(ticket.eventId, ticket.ticketDate)}) ev
             WHERE ${guard}`;
  return step(db, query, (result) => read.changes(result) === 1);
}

/** True once the ticket `ticketId` is written. */
export function ticketExists(ticketId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE ticket_id = ${ticketId})`;
}

/** A ticket's facts as every read of it names them (never the buyer's contact details). */
export type TicketRow = {
  ticket_id: string;
  ticket_type: TicketType;
  ticket_date: string;
  event_id: string | null;
  event_name: string | null;
  confirmation_code: string;
  cancelled_at: string | null;
  admitted_at: string | null;
};

const TICKET_ROW = sql`t.ticket_id, t.ticket_type, t.ticket_date, t.event_id, ${eventName(sql`t.event_id`)} AS event_name,
  t.confirmation_code, t.cancelled_at, t.admitted_at`;

/** A ticket, or null. */
export function selectTicket(db: Db, ticketId: string): Step<TicketRow | null> {
  return step(db, sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.ticket_id = ${ticketId}`, read.first<TicketRow>());
}

/** A ticket as the admission batch finds it after its write: `admitted_at` is its admission's. */
export type AdmissionRow = TicketRow & { admission_id: string | null; gate: string | null };

export type AdmissionAttempt = { admissionId: string; ticketId: string; today: IsoDate; gate: string; admittedAt: string };

/**
 * The statements that admit a ticket and read back how things stand. The
 * insert applies only to a valid ticket dated `today`; UNIQUE (ticket_id)
 * with ON CONFLICT DO NOTHING makes it succeed once per ticket however many
 * gates try at the same moment. The ticket row follows, and the read tells
 * whether `admissionId` is the admission now on record (null: no such ticket).
 */
export function recordAdmission(db: Db, attempt: AdmissionAttempt): [Step<void>, Step<void>, Step<AdmissionRow | null>] {
  return [
    step(
      db,
      sql`INSERT INTO admissions (admission_id, ticket_id, admitted_at, gate)
          SELECT ${attempt.admissionId}, t.ticket_id, ${attempt.admittedAt}, ${attempt.gate} FROM tickets t
           WHERE t.ticket_id = ${attempt.ticketId} AND t.ticket_date = ${attempt.today}
             AND t.cancelled_at IS NULL AND t.admitted_at IS NULL
          ON CONFLICT (ticket_id) DO NOTHING`,
      read.nothing,
    ),
    step(
      db,
      sql`UPDATE tickets SET admitted_at = ${attempt.admittedAt}
           WHERE ticket_id = ${attempt.ticketId} AND admitted_at IS NULL
             AND EXISTS (SELECT 1 FROM admissions WHERE admission_id = ${attempt.admissionId})`,
      read.nothing,
    ),
    step(
      db,
      sql`SELECT t.ticket_id, t.ticket_type, t.ticket_date, t.event_id, ${eventName(sql`t.event_id`)} AS event_name,
                 t.confirmation_code, t.cancelled_at, a.admission_id, a.admitted_at, a.gate
            FROM tickets t LEFT JOIN admissions a ON a.ticket_id = t.ticket_id
           WHERE t.ticket_id = ${attempt.ticketId}`,
      read.first<AdmissionRow>(),
    ),
  ];
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
export function attendanceQuery(date: IsoDate): Sql {
  return sql`SELECT g.ticket_type, g.event_id, ${eventName(sql`g.event_id`)} AS event_name, g.sold, g.admitted, g.cancelled
     FROM (SELECT ticket_type, event_id, count(*) AS sold, count(admitted_at) AS admitted, count(cancelled_at) AS cancelled
             FROM tickets WHERE ticket_date = ${date}
            GROUP BY ticket_type, event_id) g
    ORDER BY g.ticket_type DESC, event_name, g.event_id`;
}

export function selectAttendance(db: Db, date: IsoDate): Step<AttendanceRow[]> {
  return step(db, attendanceQuery(date), read.rows<AttendanceRow>());
}

/** A schedule change that sold tickets must follow. */
export type TicketCause =
  /** The event is deleted: its valid tickets are cancelled with it. */
  | { kind: "event-deleted"; eventId: string }
  /** The event changes; `dates`, when given, replace its dates. */
  | { kind: "event-changed"; eventId: string; dates?: IsoDate[]; cancelTickets: boolean }
  /** The museum closes on `date` (general tickets only; events run on closed days). */
  | { kind: "day-closed"; date: IsoDate; cancelTickets: boolean };

const VALID = sql`cancelled_at IS NULL AND admitted_at IS NULL`;

/** The valid tickets a cause leaves without their day (a condition on `tickets`), or null when it strands none. */
export function strandedBy(cause: TicketCause): Sql | null {
  switch (cause.kind) {
    case "event-deleted":
      return sql`event_id = ${cause.eventId} AND ${VALID} AND ${eventIsActive(sql`${cause.eventId}`)}`;
    case "event-changed":
      if (!cause.dates) return null;
      return sql`event_id = ${cause.eventId} AND ${VALID} AND ${eventIsActive(sql`${cause.eventId}`)}
                 AND ticket_date NOT IN (SELECT value FROM json_each(${JSON.stringify(cause.dates)}))`;
    case "day-closed":
      return sql`ticket_type = 'general' AND ticket_date = ${cause.date} AND ${VALID}`;
  }
}

/** Cancels the tickets `stranded` names. */
export function cancelTickets(db: Db, stranded: Sql): Step<void> {
  return step(db, sql`UPDATE tickets SET cancelled_at = ${SQL_NOW} WHERE ${stranded}`, read.nothing);
}

/** How many tickets `stranded` names, per date, in date order. */
export function countTicketsByDate(db: Db, stranded: Sql): Step<{ ticket_date: string; n: number }[]> {
  return step(
    db,
    sql`SELECT ticket_date, count(*) AS n FROM tickets WHERE ${stranded} GROUP BY ticket_date ORDER BY ticket_date`,
    read.rows<{ ticket_date: string; n: number }>(),
  );
}
