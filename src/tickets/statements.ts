// The tickets feature's tables (tickets, ticket_places): every statement on
// them, and the read fragments other features may put in theirs.
import sql, { join, raw, type Sql } from "sql-template-tag";
import { eventIsActive, eventName } from "../events/statements";
import { defaultCategoryId } from "../categories/statements";
import { dayPlanOn, keepsEntry, planField } from "../hours/statements";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW } from "../platform/sql";
import type { TicketLine, TicketType } from "./schemas";

export type NewTicket = TicketLine & {
  email: string;
  phone?: string;
  ticketId: string;
  confirmationCode: string;
  /** The price recorded on the ticket: the general price, or its event's as the sale read it. */
  priceCents: number;
  soldBy: string;
  /** The order the ticket is a line of (0-based), if any. */
  order?: { orderId: string; line: number };
};

const TICKET_COLUMNS = sql`(ticket_id, ticket_type, ticket_date, event_id, confirmation_code, buyer_email, buyer_phone, price_cents, sold_by, entry_time, order_id, order_line, category)`;

/** Where places are counted: a day's general tickets, an entry slot's, an event date's. */
export type PlaceScope = { scope: "day" } | { scope: "slot"; entryTime: string } | { scope: "event"; eventId: string };

/** Places taken on `date` in a scope (`ref` an SQL expression): one primary-key read, however many were sold. */
export function placesTaken(date: Sql, scope: PlaceScope["scope"], ref: Sql): Sql {
  return sql`coalesce((SELECT taken FROM ticket_places WHERE ticket_date = ${date} AND scope = ${scope} AND ref = ${ref}), 0)`;
}

/**
 * Writes a ticket only while `sale.requires` (an SQL condition on the row of
 * `sale.from`) holds, checked in the same statement so that nothing can slip
 * between a check and the write (and no two sales can both take the last
 * place: D1 runs one write at a time). Reads whether it wrote.
 */
export function insertTicket(db: Db, ticket: NewTicket, sale: { from: Sql; requires: Sql }): Step<boolean> {
  return step(
    db,
    sql`INSERT INTO tickets ${TICKET_COLUMNS}
        SELECT ${ticket.ticketId}, ${ticket.ticketType}, ${ticket.ticketDate},
               ${ticket.ticketType === "event" ? ticket.eventId : null}, ${ticket.confirmationCode},
               ${ticket.email}, ${ticket.phone ?? null}, ${ticket.priceCents}, ${ticket.soldBy},
               ${ticket.ticketType === "general" ? (ticket.entryTime ?? null) : null},
               ${ticket.order?.orderId ?? null}, ${ticket.order?.line ?? null}, ${defaultCategoryId}
          FROM ${sale.from}
         WHERE ${sale.requires}`,
    (result) => read.changes(result) > 0,
  );
}

/** How many of the tickets `ticketIds` are written (an SQL expression, for a guard). */
export function ticketsWritten(ticketIds: readonly string[]): Sql {
  return sql`(SELECT count(*) FROM tickets WHERE ticket_id IN (${join(ticketIds)}))`;
}

/** A ticket as `importTickets` writes it: the columns of a sale's row, as the sale would have filled them. */
type ImportedTicket = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: IsoDate;
  eventId?: string;
  entryTime?: string;
  confirmationCode: string;
  email: string;
  phone?: string;
  priceCents: number;
  soldBy: string;
};

/**
 * Writes tickets sold elsewhere, many in one statement (one JSON parameter),
 * without the sale's checks: for loading a database (the bench's seed), never
 * for a sale. The triggers of migrations/0011 count their places as a sale's.
 * @public (used by the tools, which bundle this file)
 */
export function importTickets(db: Db, tickets: ImportedTicket[]): Step<number> {
  const rows = JSON.stringify(tickets);
  return step(
    db,
    sql`INSERT INTO tickets ${TICKET_COLUMNS}
        SELECT value ->> 'ticketId', value ->> 'ticketType', value ->> 'ticketDate', value ->> 'eventId',
               value ->> 'confirmationCode', value ->> 'email', value ->> 'phone', value ->> 'priceCents',
               value ->> 'soldBy', value ->> 'entryTime', NULL, NULL, ${defaultCategoryId}
          FROM json_each(${rows})`,
    read.changes,
  );
}

/** Places taken on `date`, per scope: the day's general tickets, each slot's, each event's. */
export type PlacesTaken = { day: number; slots: Map<string, number>; events: Map<string, number> };

export function selectPlacesTaken(db: Db, date: IsoDate): Step<PlacesTaken> {
  return step(db, sql`SELECT scope, ref, taken FROM ticket_places WHERE ticket_date = ${date}`, (result) => {
    const places: PlacesTaken = { day: 0, slots: new Map(), events: new Map() };
    for (const row of read.rows<{ scope: PlaceScope["scope"]; ref: string; taken: number }>()(result)) {
      if (row.scope === "day") places.day = row.taken;
      else (row.scope === "slot" ? places.slots : places.events).set(row.ref, row.taken);
    }
    return places;
  });
}

/**
 * A limit on places, for a change that sets one: in `scope` (of `ref`
 * only, when given), from `from` on, at most `limit(date)` places (an SQL
 * expression of the date column; NULL: no limit).
 */
export type PlaceLimit = {
  scope: PlaceScope["scope"];
  ref?: string;
  from: IsoDate;
  /** The last date checked (default: every date from `from` on). */
  until?: IsoDate;
  limit: (date: Sql) => Sql;
};

/** The dates a limit would leave with more places taken than it allows, and the most taken on each. */
function overLimitQuery({ scope, ref, from, until, limit }: PlaceLimit): Sql {
  return sql`SELECT p.ticket_date, max(p.taken) AS sold FROM ticket_places p
     WHERE p.scope = ${scope} AND p.ticket_date >= ${from}
       ${until === undefined ? sql`` : sql`AND p.ticket_date <= ${until}`}
       ${ref === undefined ? sql`` : sql`AND p.ref = ${ref}`}
       AND p.taken > ${limit(raw("p.ticket_date"))}
     GROUP BY p.ticket_date`;
}

/** True when the limit is below what is taken on some date. */
export function placesOverLimit(limit: PlaceLimit): Sql {
  return sql`EXISTS (${overLimitQuery(limit)})`;
}

export function selectPlacesOverLimit(db: Db, limit: PlaceLimit): Step<{ ticket_date: string; sold: number }[]> {
  return step(db, sql`${overLimitQuery(limit)} ORDER BY p.ticket_date`, read.rows());
}

/** True once the ticket `ticketId` is written. */
export function ticketExists(ticketId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE ticket_id = ${ticketId})`;
}

/** Who cancelled a ticket: the box office, or a change by the museum. */
type CancelSource = "box-office" | "event-deleted" | "date-removed" | "closure" | "schedule-change";

/** A ticket's facts as every read of it names them (never the buyer's contact details). */
export type TicketRow = {
  ticket_id: string;
  ticket_type: TicketType;
  ticket_date: string;
  event_id: string | null;
  event_name: string | null;
  confirmation_code: string;
  entry_time: string | null;
  price_cents: number;
  sold_by: string;
  order_id: string | null;
  cancelled_at: string | null;
  cancel_source: CancelSource | null;
  cancel_reason: string | null;
  refund_cents: number | null;
  admitted_at: string | null;
};

const TICKET_ROW = sql`t.ticket_id, t.ticket_type, t.ticket_date, t.event_id, ${eventName(sql`t.event_id`)} AS event_name,
  t.confirmation_code, t.entry_time, t.price_cents, t.sold_by, t.order_id,
  t.cancelled_at, t.cancel_source, t.cancel_reason, t.refund_cents, t.admitted_at`;

/** Tickets `t` sold by `seller`; null: by anyone (tickets/access.ts). */
const soldBy = (seller: string | null) => sql`(${seller} IS NULL OR t.sold_by = ${seller})`;

/** The ticket `ticketId` (a value, or an SQL expression such as an admission's ticket) sold by `seller` (null: by anyone), or null. */
export function selectTicket(db: Db, ticketId: string | Sql, seller: string | null): Step<TicketRow | null> {
  return step(
    db,
    sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.ticket_id = ${ticketId} AND ${soldBy(seller)}`,
    read.first<TicketRow>(),
  );
}

/** The tickets of an order sold by `seller` (null: by anyone), in the order of its lines. */
export function selectOrderTickets(db: Db, orderId: string, seller: string | null): Step<TicketRow[]> {
  return step(
    db,
    sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.order_id = ${orderId} AND ${soldBy(seller)} ORDER BY t.order_line`,
    read.rows<TicketRow>(),
  );
}

/** A ticket's columns as SQL expressions, for a condition another feature builds on a ticket. */
export type TicketColumns = { ticketType: Sql; ticketDate: Sql; entryTime: Sql };

/** A box-office cancellation: which tickets (one, or an order's), by whom, and why. */
export type BoxOfficeCancellation = {
  target: { ticketId: string } | { orderId: string };
  cancellationId: string;
  /** When (RFC 3339, UTC). */
  cancelledAt: string;
  reason: string | null;
  /** Only tickets this account sold; null: any (tickets/access.ts). */
  soldBy: string | null;
  /** True while a ticket can still be cancelled (an SQL condition on its columns). */
  cancellable: (ticket: TicketColumns) => Sql;
};

/** A ticket a cancellation took, and what is owed back for it. */
export type CancelledTicket = { ticket_id: string; refund_cents: number };

/**
 * Cancels the target's tickets that can still be cancelled, refunding their
 * recorded price: valid (neither admitted nor cancelled), sold by `soldBy`
 * when given, and `cancellable`. `guard`, an SQL condition, must hold too
 * (an Idempotency-Key's claim). Reads the tickets it cancelled; the places
 * they took are free when it returns (migrations/0011_capacity.sql).
 */
export function cancelAtBoxOffice(db: Db, cancellation: BoxOfficeCancellation, guard: Sql = sql`1`): Step<CancelledTicket[]> {
  const { target } = cancellation;
  const columns = { ticketType: raw("t.ticket_type"), ticketDate: raw("t.ticket_date"), entryTime: raw("t.entry_time") };
  return step(
    db,
    sql`UPDATE tickets AS t
           SET cancelled_at = ${cancellation.cancelledAt}, cancellation_id = ${cancellation.cancellationId},
               cancel_source = 'box-office', cancel_reason = ${cancellation.reason}, refund_cents = t.price_cents
         WHERE ${"ticketId" in target ? sql`t.ticket_id = ${target.ticketId}` : sql`t.order_id = ${target.orderId}`}
           AND t.cancelled_at IS NULL AND t.admitted_at IS NULL
           AND ${soldBy(cancellation.soldBy)}
           AND ${cancellation.cancellable(columns)}
           AND ${guard}
        RETURNING ticket_id, refund_cents`,
    read.rows<CancelledTicket>(),
  );
}

/** True once the cancellation `cancellationId` took a ticket. */
export function cancellationMade(cancellationId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE cancellation_id = ${cancellationId})`;
}

/** The tickets the cancellation `cancellationId` took (for its answer again). */
export function selectCancelledBy(db: Db, cancellationId: string): Step<CancelledTicket[]> {
  return step(
    db,
    sql`SELECT ticket_id, refund_cents FROM tickets WHERE cancellation_id = ${cancellationId}`,
    read.rows<CancelledTicket>(),
  );
}

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
  | "cancelled-after-entry";

/**
 * The rules of admission, online and offline alike, for the ticket `t` at
 * `moment`: cancelled before the scan, already admitted, not for the scan's
 * day, before its entry window, a general ticket after its day's closing
 * time; a ticket cancelled after the scan that was otherwise admittable was
 * used, then refunded (online the scan is now, so that never happens).
 */
function judgementOf(moment: ScanMoment): Sql {
  const timeClose = planField(dayPlanOn(sql`t.ticket_date`), "timeClose");
  return sql`(CASE
    WHEN t.cancelled_at IS NOT NULL AND t.cancelled_at <= ${moment.at} THEN 'ticket-cancelled'
    WHEN t.admitted_at IS NOT NULL THEN 'already-admitted'
    WHEN t.ticket_date <> ${moment.today} THEN 'not-valid-today'
    WHEN t.entry_time IS NOT NULL AND t.entry_time > ${moment.latestEntryTime} THEN 'too-early'
    WHEN t.ticket_type = 'general' AND ${moment.time} >= ${timeClose} THEN 'too-late'
    WHEN t.cancelled_at IS NOT NULL THEN 'cancelled-after-entry'
    ELSE 'admittable' END)`;
}

/** The judgement of admitting the ticket `ticketId` (an SQL expression) at `moment`; NULL when there is no such ticket. */
export function admissionJudgement(ticketId: Sql, moment: ScanMoment): Sql {
  return sql`(SELECT ${judgementOf(moment)} FROM tickets t WHERE t.ticket_id = ${ticketId})`;
}

/** The judgement of admitting the ticket `ticketId` at `moment` as it stands, and its day's closing time (null: no such ticket). */
export function selectAdmissionJudgement(
  db: Db,
  ticketId: string,
  moment: ScanMoment,
): Step<{ judgement: AdmissionJudgement; time_close: string | null } | null> {
  return step(
    db,
    sql`SELECT ${judgementOf(moment)} AS judgement, ${planField(dayPlanOn(sql`t.ticket_date`), "timeClose")} AS time_close
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
 * admitted_at` pairs: admissions just recorded) that are not yet.
 */
export function markAdmittedBy(db: Db, admissions: Sql): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET admitted_at = a.admitted_at FROM (${admissions}) a
         WHERE tickets.ticket_id = a.ticket_id AND tickets.admitted_at IS NULL`,
    read.nothing,
  );
}

/** Marks the ticket admitted at `admittedAt` when `admitted` (an SQL condition: its admission is on record) holds. */
export function markAdmitted(db: Db, ticketId: string, admittedAt: string, admitted: Sql): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET admitted_at = ${admittedAt} WHERE ticket_id = ${ticketId} AND admitted_at IS NULL AND ${admitted}`,
    read.nothing,
  );
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
 * @internal (for tests)
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

/**
 * A schedule change that sold tickets must follow. Only tickets for `today`
 * (the museum's) or later follow it: admitted and past tickets keep their state.
 */
export type TicketCause = { today: IsoDate } & (
  /** The event is deleted: its valid tickets are cancelled with it. */
  | { kind: "event-deleted"; eventId: string }
  /** The event changes; `dates`, when given, replace its dates. */
  | { kind: "event-changed"; eventId: string; dates?: IsoDate[]; cancelTickets: boolean }
  /**
   * `date` gets a new plan (`plan`: JSON as hours' `dayPlanOn` gives it, NULL
   * for closed), by an exception set or removed (general tickets only; events
   * run on closed days).
   */
  | { kind: "day-changed"; date: IsoDate; plan: Sql; cancelTickets: boolean }
  /**
   * The weekly schedule changes: every date it `decides` (an SQL condition
   * of the date) gets the plan `planOn(date)` (JSON, NULL: closed).
   */
  | {
      kind: "week-changed";
      decides: (date: Sql) => Sql;
      planOn: (date: Sql) => Sql;
      cancelTickets: boolean;
    }
);

const VALID = sql`cancelled_at IS NULL AND admitted_at IS NULL`;

/** The valid tickets a cause leaves without their day (a condition on `tickets`), or null when it strands none. */
export function strandedBy(cause: TicketCause): Sql | null {
  const valid = sql`${VALID} AND ticket_date >= ${cause.today}`;
  switch (cause.kind) {
    case "event-deleted":
      return sql`event_id = ${cause.eventId} AND ${valid} AND ${eventIsActive(sql`${cause.eventId}`)}`;
    case "event-changed":
      if (!cause.dates) return null;
      return sql`event_id = ${cause.eventId} AND ${valid} AND ${eventIsActive(sql`${cause.eventId}`)}
                 AND ticket_date NOT IN (SELECT value FROM json_each(${JSON.stringify(cause.dates)}))`;
    case "day-changed":
      return sql`ticket_type = 'general' AND ticket_date = ${cause.date} AND ${valid}
                 AND NOT ${keepsEntry(cause.plan, raw("entry_time"))}`;
    case "week-changed": {
      const date = raw("ticket_date");
      return sql`ticket_type = 'general' AND ${valid}
                 AND ${cause.decides(date)} AND NOT ${keepsEntry(cause.planOn(date), raw("entry_time"))}`;
    }
  }
}

/** What a cancellation by `cause` is recorded as (an SQL expression of a ticket's row). */
function cancelSourceOf(cause: TicketCause): Sql {
  switch (cause.kind) {
    case "event-deleted":
      return sql`${"event-deleted" satisfies CancelSource}`;
    case "event-changed":
      return sql`${"date-removed" satisfies CancelSource}`;
    case "day-changed":
      return sql`CASE WHEN ${cause.plan} IS NULL THEN ${"closure" satisfies CancelSource} ELSE ${"schedule-change" satisfies CancelSource} END`;
    case "week-changed":
      return sql`${"schedule-change" satisfies CancelSource}`;
  }
}

/** True when a ticket is among those `stranded` names. */
export function anyTicket(stranded: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE ${stranded})`;
}

/** Cancels the tickets `stranded` names, for `cause`: the museum's change refunds their full price. */
export function cancelTickets(db: Db, stranded: Sql, cause: TicketCause): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET cancelled_at = ${SQL_NOW}, cancel_source = ${cancelSourceOf(cause)}, refund_cents = price_cents
         WHERE ${stranded}`,
    read.nothing,
  );
}

/** How many tickets `stranded` names, per date, in date order. */
export function countTicketsByDate(db: Db, stranded: Sql): Step<{ ticket_date: string; n: number }[]> {
  return step(
    db,
    sql`SELECT ticket_date, count(*) AS n FROM tickets WHERE ${stranded} GROUP BY ticket_date ORDER BY ticket_date`,
    read.rows<{ ticket_date: string; n: number }>(),
  );
}
