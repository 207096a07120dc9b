// The tickets feature's tables (tickets, ticket_places, ticket_revocations): every statement on
// them, and the read fragments other features may put in theirs.
import sql, { join, raw, type Sql } from "sql-template-tag";
import { eventIsActive, eventName } from "../events/statements";
import { categoryName, categoryOf, defaultCategoryId, isAccompanied } from "../categories/statements";
import { dayPlanOn, keepsEntry, planField } from "../hours/statements";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW, sqlAmount } from "../platform/sql";
import type { TicketLine, TicketType } from "./schemas";

export type NewTicket = TicketLine & {
  /** The buyer's e-mail; a held ticket may have none yet (its confirmation brings it). */
  email: string | undefined;
  phone?: string;
  ticketId: string;
  confirmationCode: string;
  /** The price recorded on the ticket (an SQL expression, decided in the insert's own statement). */
  price: Sql;
  /** Its entry time (an SQL expression, NULL: none), decided in the insert's own statement (a start time's is the day's to decide). */
  entry: Sql;
  soldBy: string;
  /** The order the ticket is a line of (0-based), if any. */
  order?: { orderId: string; line: number };
  /** When its hold ends (an SQL timestamp expression): a held ticket; none: sold at once. */
  holdUntil?: Sql;
};

const TICKET_COLUMNS = sql`(ticket_id, ticket_type, ticket_date, event_id, confirmation_code, buyer_email, buyer_phone, price_cents, sold_by, entry_time, order_id, order_line, category, hold_until)`;

/** Where places are counted: a day's general tickets, an entry slot's, an event date's. */
export type PlaceScope = { scope: "day" } | { scope: "slot"; entryTime: string } | { scope: "event"; eventId: string };

/** True while a ticket's hold has ended by the database's clock (`t`: the ticket's alias) and nothing recorded it yet. */
const holdRanOut = (t: Sql) => sql`${t}.hold_until IS NOT NULL AND ${t}.cancelled_at IS NULL AND ${t}.hold_until <= ${SQL_NOW}`;

/** True for a ticket `t` of the scope `scope` of `ref` (SQL expressions). */
function inScope(t: Sql, scope: Sql, ref: Sql): Sql {
  return sql`CASE ${scope} WHEN 'day' THEN ${t}.ticket_type = 'general' WHEN 'slot' THEN ${t}.entry_time = ${ref}
                          ELSE ${t}.ticket_type = 'event' AND ${t}.event_id = ${ref} END`;
}

/**
 * The expired holds nothing recorded yet on `date` in a scope: ticket_places
 * still counts them (migrations/0015), every read of places subtracts them,
 * so their places are free at hold_until exactly. Reads the few rows of the
 * partial index tickets_on_hold.
 */
function expiredHolds(date: Sql, scope: Sql, ref: Sql): Sql {
  const h = raw("h");
  return sql`(SELECT count(*) FROM tickets h INDEXED BY tickets_on_hold
               WHERE h.ticket_date = ${date} AND ${holdRanOut(h)} AND ${inScope(h, scope, ref)})`;
}

/**
 * Places taken on `date` in a scope (`ref` an SQL expression): valid,
 * admitted and live held tickets. One primary-key read, however many were
 * sold, and the day's expired holds not yet recorded.
 */
export function placesTaken(date: Sql, scope: PlaceScope["scope"], ref: Sql): Sql {
  return sql`(coalesce((SELECT taken FROM ticket_places WHERE ticket_date = ${date} AND scope = ${scope} AND ref = ${ref}), 0)
              - ${expiredHolds(date, sql`${scope}`, ref)})`;
}

/**
 * What a sale's insert decided of its ticket: the price recorded, the
 * category (the default's, when the line named none) and, held, its hold's end.
 */
export type WrittenTicket = { price_cents: number; category: string; category_name: string; hold_until: string | null; entry_time: string | null };

/**
 * Writes a ticket only while `sale.requires` (an SQL condition on the row of
 * `sale.from`) holds, checked in the same statement so that nothing can slip
 * between a check and the write (and no two sales can both take the last
 * place: D1 runs one write at a time). Reads what it wrote, or null.
 */
export function insertTicket(db: Db, ticket: NewTicket, sale: { from: Sql; requires: Sql }): Step<WrittenTicket | null> {
  return step(
    db,
    sql`INSERT INTO tickets ${TICKET_COLUMNS}
        SELECT ${ticket.ticketId}, ${ticket.ticketType}, ${ticket.ticketDate},
               ${ticket.ticketType === "event" ? ticket.eventId : null}, ${ticket.confirmationCode},
               ${ticket.email ?? null}, ${ticket.phone ?? null}, ${ticket.price}, ${ticket.soldBy},
               ${ticket.entry},
               ${ticket.order?.orderId ?? null}, ${ticket.order?.line ?? null}, ${categoryOf(ticket.category)},
               ${ticket.holdUntil ?? null}
          FROM ${sale.from}
         WHERE ${sale.requires}
        RETURNING price_cents, category, ${categoryName(raw("tickets.category"))} AS category_name, hold_until, entry_time`,
    read.first<WrittenTicket>(),
  );
}

/**
 * `answer` (JSON text) with what the tickets written record (an SQL
 * expression, for an answer stored in the sale's own batch): each ticket of
 * its array at `paths.tickets` (objects with `ticketId`) gets its `price`
 * and `category`, and `paths.total` the sum of the prices. One parameter
 * however many tickets (D1 binds at most 100 per statement).
 */
export function withRecordedPrices(answer: string, paths: { tickets: string; total: string }): Sql {
  const written = sql`json_each(${answer}, ${paths.tickets}) a JOIN tickets t ON t.ticket_id = a.value ->> 'ticketId'`;
  const priced = sql`SELECT json_set(a.value, '$.price', ${sqlAmount(raw("t.price_cents"))}, '$.category', t.category) AS ticket
                       FROM ${written} ORDER BY a.key`;
  return sql`json_set(${answer},
    ${paths.total}, (SELECT ${sqlAmount(raw("sum(t.price_cents)"))} FROM ${written}),
    ${paths.tickets}, json((SELECT json_group_array(json(ticket)) FROM (${priced}))))`;
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
               value ->> 'soldBy', value ->> 'entryTime', NULL, NULL, ${defaultCategoryId}, NULL
          FROM json_each(${rows})`,
    read.changes,
  );
}

/** Places taken on `date`, per scope: the day's general tickets, each slot's, each event's. */
export type PlacesTaken = { day: number; slots: Map<string, number>; events: Map<string, number> };

type PlacesRow = { scope: PlaceScope["scope"]; ref: string; taken: number };

function placesOf(rows: PlacesRow[]): PlacesTaken {
  const places: PlacesTaken = { day: 0, slots: new Map(), events: new Map() };
  for (const row of rows) {
    if (row.scope === "day") places.day = row.taken;
    else (row.scope === "slot" ? places.slots : places.events).set(row.ref, row.taken);
  }
  return places;
}

/**
 * The places taken on `date`.
 * @public (used by the tools, which bundle this file)
 */
export function selectPlacesTaken(db: Db, date: IsoDate): Step<PlacesTaken> {
  const taken = sql`p.taken - ${expiredHolds(sql`${date}`, sql`p.scope`, sql`p.ref`)}`;
  return step(db, sql`SELECT scope, ref, ${taken} AS taken FROM ticket_places p WHERE ticket_date = ${date}`, (result) =>
    placesOf(read.rows<PlacesRow>()(result)),
  );
}

/**
 * The places taken on `date` (an SQL expression) as one JSON array (read by
 * `parsePlacesTaken`): for a read of a day's, or many days', availability.
 */
export function placesTakenOn(date: Sql): Sql {
  const taken = sql`p.taken - ${expiredHolds(date, sql`p.scope`, sql`p.ref`)}`;
  return sql`(SELECT json_group_array(json_object('scope', p.scope, 'ref', p.ref, 'taken', ${taken}))
      FROM ticket_places p WHERE p.ticket_date = ${date})`;
}

/** The places of `placesTakenOn` (its JSON). */
export function parsePlacesTaken(json: string): PlacesTaken {
  return placesOf(JSON.parse(json) as PlacesRow[]);
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
  const taken = sql`(p.taken - ${expiredHolds(raw("p.ticket_date"), raw("p.scope"), raw("p.ref"))})`;
  return sql`SELECT p.ticket_date, max(${taken}) AS sold FROM ticket_places p
     WHERE p.scope = ${scope} AND p.ticket_date >= ${from}
       ${until === undefined ? sql`` : sql`AND p.ticket_date <= ${until}`}
       ${ref === undefined ? sql`` : sql`AND p.ref = ${ref}`}
       AND ${taken} > ${limit(raw("p.ticket_date"))}
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

/** Who cancelled a ticket: the box office, a change by the museum, or a hold that ran out or was released. */
type CancelSource = "box-office" | "event-deleted" | "date-removed" | "closure" | "schedule-change" | "hold-expired" | "hold-released";

/** A ticket's facts as every read of it names them (never the buyer's contact details). */
export type TicketRow = {
  ticket_id: string;
  ticket_type: TicketType;
  ticket_date: string;
  event_id: string | null;
  event_name: string | null;
  confirmation_code: string;
  entry_time: string | null;
  category: string;
  category_name: string;
  price_cents: number;
  sold_by: string;
  order_id: string | null;
  cancelled_at: string | null;
  cancel_source: CancelSource | null;
  cancel_reason: string | null;
  cancelled_by: string | null;
  refund_cents: number | null;
  admitted_at: string | null;
  /** While held (or once its hold ran out or was released): when its hold ends. */
  hold_until: string | null;
  /** 1 when the hold ran out by the database's clock and nothing recorded it yet. */
  hold_expired: number;
};

const TICKET_ROW = sql`t.ticket_id, t.ticket_type, t.ticket_date, t.event_id, ${eventName(sql`t.event_id`)} AS event_name,
  t.confirmation_code, t.entry_time, t.category, ${categoryName(raw("t.category"))} AS category_name, t.price_cents, t.sold_by, t.order_id,
  t.cancelled_at, t.cancel_source, t.cancel_reason, t.cancelled_by, t.refund_cents, t.admitted_at,
  t.hold_until, coalesce(${holdRanOut(raw("t"))}, 0) AS hold_expired`;

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

/** The ticket whose confirmation code is `code` (as stored: lower case), sold by `seller` (null: by anyone), or null. */
export function selectTicketByConfirmationCode(db: Db, code: string, seller: string | null): Step<TicketRow | null> {
  return step(
    db,
    sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.confirmation_code = ${code} AND ${soldBy(seller)}`,
    read.first<TicketRow>(),
  );
}

/**
 * The tickets of an order (an id, or an SQL query of order ids: several
 * orders) sold by `seller` (null: by anyone), each order's in the order of its lines.
 */
export function selectOrderTickets(db: Db, orderIds: string | Sql, seller: string | null): Step<TicketRow[]> {
  return step(
    db,
    sql`SELECT ${TICKET_ROW} FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)} ORDER BY t.order_id, t.order_line`,
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
  /** The account that cancels (`cancellation.by`). */
  by: string;
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
 * when given, and `cancellable`. An order's held tickets (live or run out)
 * are released instead: `hold-released`, refund 0 (nothing was paid); a
 * single held ticket is not cancelled (its order is released whole).
 * `guard`, an SQL condition, must hold too (an Idempotency-Key's claim).
 * Reads the tickets it cancelled; the places they took are free when it
 * returns (migrations/0011_capacity.sql).
 */
export function cancelAtBoxOffice(db: Db, cancellation: BoxOfficeCancellation, guard: Sql = sql`1`): Step<CancelledTicket[]> {
  const { target } = cancellation;
  const columns = { ticketType: raw("t.ticket_type"), ticketDate: raw("t.ticket_date"), entryTime: raw("t.entry_time") };
  return step(
    db,
    sql`UPDATE tickets AS t
           SET cancelled_at = ${cancellation.cancelledAt}, cancellation_id = ${cancellation.cancellationId},
               cancel_source = CASE WHEN t.hold_until IS NULL THEN ${"box-office" satisfies CancelSource}
                                    ELSE ${"hold-released" satisfies CancelSource} END,
               cancel_reason = ${cancellation.reason}, cancelled_by = ${cancellation.by},
               refund_cents = CASE WHEN t.hold_until IS NULL THEN t.price_cents ELSE 0 END
         WHERE ${"ticketId" in target ? sql`t.ticket_id = ${target.ticketId} AND t.hold_until IS NULL` : sql`t.order_id = ${target.orderId}`}
           AND t.cancelled_at IS NULL AND t.admitted_at IS NULL
           AND ${soldBy(cancellation.soldBy)}
           AND (t.hold_until IS NOT NULL OR ${cancellation.cancellable(columns)})
           AND ${guard}
        RETURNING ticket_id, refund_cents`,
    read.rows<CancelledTicket>(),
  );
}

/**
 * True when the ticket `ticketId` is the last companion of an accompanied
 * ticket of its order: a valid ticket of an accompanied category, for the
 * same date, event (or general) and entry time, with no other valid or
 * admitted ticket there of a category that is not accompanied.
 */
export function lastCompanion(ticketId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets t JOIN tickets c
       ON c.order_id = t.order_id AND c.ticket_id <> t.ticket_id AND c.ticket_date = t.ticket_date
      AND c.event_id IS t.event_id AND c.entry_time IS t.entry_time
    WHERE t.ticket_id = ${ticketId} AND NOT ${isAccompanied(raw("t.category"))}
      AND c.cancelled_at IS NULL AND c.admitted_at IS NULL AND ${isAccompanied(raw("c.category"))}
      AND NOT EXISTS (SELECT 1 FROM tickets m
                       WHERE m.order_id = c.order_id AND m.ticket_id <> t.ticket_id AND m.cancelled_at IS NULL
                         AND m.ticket_date = c.ticket_date AND m.event_id IS c.event_id AND m.entry_time IS c.entry_time
                         AND NOT ${isAccompanied(raw("m.category"))}))`;
}

export function selectLastCompanion(db: Db, ticketId: string): Step<boolean> {
  return step(db, sql`SELECT ${lastCompanion(ticketId)} AS last`, (result) => read.first<{ last: number }>()(result)?.last === 1);
}

/** True when the cancellation `cancellationId` took the ticket `ticketId`. */
export function cancelledBy(ticketId: string, cancellationId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE ticket_id = ${ticketId} AND cancellation_id = ${cancellationId})`;
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
  | "cancelled-after-entry"
  | "invalid-ticket-code";

/**
 * The rules of admission, online and offline alike, for the ticket `t` at
 * `moment`: cancelled before the scan, already admitted, not for the scan's
 * day, before its entry window, a general ticket after its day's closing
 * time; a ticket cancelled after the scan that was otherwise admittable was
 * used, then refunded (online the scan is now, so that never happens). A
 * ticket held for an order (its hold live, run out or released) was never
 * sold and has no code: a code naming it is not genuine.
 */
function judgementOf(moment: ScanMoment): Sql {
  const timeClose = planField(dayPlanOn(sql`t.ticket_date`), "timeClose");
  return sql`(CASE
    WHEN t.hold_until IS NOT NULL THEN 'invalid-ticket-code'
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

/** Valid for every rule that protects sold tickets: sold and neither admitted nor cancelled, or held by a live hold. */
const VALID = sql`cancelled_at IS NULL AND admitted_at IS NULL AND (hold_until IS NULL OR hold_until > ${SQL_NOW})`;

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

/**
 * Cancels the tickets `stranded` names, for `cause`: the museum's change
 * refunds their full price. A held order any of whose tickets it cancels is
 * released whole: all its held tickets, with the same source, refund 0.
 */
export function cancelTickets(db: Db, stranded: Sql, cause: TicketCause): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET cancelled_at = ${SQL_NOW}, cancel_source = ${cancelSourceOf(cause)},
                           refund_cents = CASE WHEN hold_until IS NULL THEN price_cents ELSE 0 END
         WHERE (${stranded})
            OR (hold_until IS NOT NULL AND cancelled_at IS NULL
                AND order_id IN (SELECT order_id FROM tickets WHERE (${stranded}) AND hold_until IS NOT NULL))`,
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

/** Why a ticket's code was revoked (migrations/0015: the trigger writes `cancelled`). */
type RevocationReason = "cancelled" | "key-withdrawn";

/** An entry of the revocation log and the ticket it names, as the feeds read it. */
export type RevocationRow = {
  position: number;
  ticket_id: string;
  reason: RevocationReason;
  revoked_at: string;
  ticket_date: string;
  order_id: string | null;
  cancel_source: CancelSource | null;
  cancelled_by: string | null;
  refund_cents: number | null;
  price_cents: number;
};

/** Which entries of the revocation log a feed reads. */
export type RevocationFilter = {
  /** Only entries after this position (0: from the start). */
  after: number;
  /** Only entries of this reason (default: every reason). */
  reason?: RevocationReason;
  /** Only tickets this account sold; null: any (tickets/access.ts). */
  soldBy: string | null;
  /** Only tickets for this date or later (default: any date). */
  from?: IsoDate;
  limit: number;
};

/**
 * The revocation log after a position, in the order it was written (its
 * positions are numbered in the cancelling batch and never reused, so a
 * reader by position never skips nor repeats an entry): each entry with its
 * ticket (one primary-key read), at most `limit`.
 */
export function selectRevocations(db: Db, filter: RevocationFilter): Step<RevocationRow[]> {
  return step(
    db,
    sql`SELECT r.position, r.ticket_id, r.reason, r.revoked_at, t.ticket_date, t.order_id,
               t.cancel_source, t.cancelled_by, t.refund_cents, t.price_cents
          FROM ticket_revocations r JOIN tickets t ON t.ticket_id = r.ticket_id
         WHERE r.position > ${filter.after}
           AND (${filter.reason ?? null} IS NULL OR r.reason = ${filter.reason ?? null})
           AND ${soldBy(filter.soldBy)}
           AND (${filter.from ?? null} IS NULL OR t.ticket_date >= ${filter.from ?? null})
         ORDER BY r.position
         LIMIT ${filter.limit}`,
    read.rows<RevocationRow>(),
  );
}

/** When the order `orderId`'s hold ends (an SQL expression; NULL: it has no held ticket): its tickets' hold_until. */
export function orderHoldEnd(orderId: string): Sql {
  return sql`(SELECT min(hold_until) FROM tickets WHERE order_id = ${orderId})`;
}

/**
 * Ends every held ticket of the order `orderId` with the first of them to
 * end: the order's hold has one end. Reads that end (null: nothing held).
 */
export function alignOrderHold(db: Db, orderId: string): Step<string | null> {
  return step(
    db,
    sql`UPDATE tickets SET hold_until = ${orderHoldEnd(orderId)} WHERE order_id = ${orderId} AND hold_until IS NOT NULL
        RETURNING hold_until`,
    (result) => read.first<{ hold_until: string }>()(result)?.hold_until ?? null,
  );
}

/** True while the order `orderId` is held by a live hold (the database's clock). */
export function orderHoldLive(orderId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE order_id = ${orderId} AND cancelled_at IS NULL AND hold_until > ${SQL_NOW})`;
}

/** True when the held order `orderId` has a ticket without the buyer's e-mail. */
export function orderLacksEmail(orderId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE order_id = ${orderId} AND buyer_email IS NULL)`;
}

/**
 * The places the tickets of `t`'s order ahead of it (lower lines) take in
 * each of its scopes: what a late confirmation counts, in the order of the
 * lines, before `t` (its held tickets take no place any more).
 */
export function orderLinesAhead(t: Sql): { day: Sql; slot: Sql; event: Sql } {
  const ahead = (scope: Sql) =>
    sql`(SELECT count(*) FROM tickets o WHERE o.order_id = ${t}.order_id AND o.order_line < ${t}.order_line
                                        AND o.ticket_date = ${t}.ticket_date AND ${scope})`;
  return {
    day: ahead(sql`o.ticket_type = 'general'`),
    slot: ahead(sql`o.entry_time = ${t}.entry_time`),
    event: ahead(sql`o.ticket_type = 'event' AND o.event_id = ${t}.event_id`),
  };
}

/** True when some ticket `t` of the order `orderId` fails `sellable` (an SQL condition on `t`). */
export function anyOrderTicketFails(orderId: string, sellable: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = ${orderId} AND NOT ${sellable})`;
}

/**
 * Sells the held tickets of the order `orderId` (live, or run out whether
 * recorded or not) when `confirming` (an SQL condition) holds: no hold any
 * more, and the buyer's contact when given (a new e-mail replaces the phone
 * too). A recorded expiry is undone and its places taken again
 * (migrations/0015). Reads how many it sold.
 */
export function confirmHeldTickets(
  db: Db,
  orderId: string,
  contact: { email?: string; phone?: string },
  confirming: Sql,
): Step<number> {
  const email = contact.email ?? null;
  return step(
    db,
    sql`UPDATE tickets SET hold_until = NULL, cancelled_at = NULL, cancel_source = NULL, refund_cents = NULL,
                           buyer_email = coalesce(${email}, buyer_email),
                           buyer_phone = CASE WHEN ${email} IS NULL THEN buyer_phone ELSE ${contact.phone ?? null} END
         WHERE order_id = ${orderId} AND hold_until IS NOT NULL
           AND (cancelled_at IS NULL OR cancel_source = ${"hold-expired" satisfies CancelSource})
           AND ${confirming}`,
    read.changes,
  );
}

/**
 * Moves the live hold of the order `orderId` to end at `until` (an SQL
 * expression of a ticket's columns) while `allowed` holds, then aligns its
 * tickets on the first end (`alignOrderHold`). Reads how many it moved.
 */
export function extendOrderHold(db: Db, orderId: string, until: (ticket: TicketColumns) => Sql, allowed: Sql): Step<number> {
  const columns = { ticketType: raw("ticket_type"), ticketDate: raw("ticket_date"), entryTime: raw("entry_time") };
  return step(
    db,
    sql`UPDATE tickets SET hold_until = ${until(columns)}
         WHERE order_id = ${orderId} AND cancelled_at IS NULL AND hold_until > ${SQL_NOW} AND ${allowed}`,
    read.changes,
  );
}

/** The ids of the orders with a ticket dated in [from, to] (an SQL query: a read of tickets_by_date). */
export function ordersWithTicketsIn(from: IsoDate, to: IsoDate): Sql {
  return sql`SELECT DISTINCT order_id FROM tickets WHERE ticket_date BETWEEN ${from} AND ${to} AND order_id IS NOT NULL`;
}

/**
 * Releases the held tickets of the order `orderId` (live, or run out and
 * not yet recorded) while `allowed` (an SQL condition) holds: their places
 * are free at once, refund 0 (nothing was paid). For the former lines of
 * an order whose lines changed (sales' `insertLinesAside`).
 */
export function releaseHeldTickets(db: Db, orderId: string, allowed: Sql): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET cancelled_at = ${SQL_NOW}, cancel_source = ${"hold-released" satisfies CancelSource}, refund_cents = 0
         WHERE order_id = ${orderId} AND hold_until IS NOT NULL AND cancelled_at IS NULL AND ${allowed}`,
    read.nothing,
  );
}

/** A day of an order's tickets and the museum's plan for it (JSON as `dayPlanOn` gives it; null: closed). */
export type OrderDayPlanRow = { order_id: string; ticket_date: string; plan: string | null };

/** The days of the tickets of the orders `orderIds` (an id, or an SQL query of ids), sold by `seller` (null: by anyone), and each day's plan. */
export function selectOrderDayPlans(db: Db, orderIds: string | Sql, seller: string | null): Step<OrderDayPlanRow[]> {
  return step(
    db,
    sql`SELECT order_id, ticket_date, ${dayPlanOn(raw("ticket_date"))} AS plan
          FROM (SELECT DISTINCT t.order_id, t.ticket_date FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)})`,
    read.rows<OrderDayPlanRow>(),
  );
}

/**
 * Gives the tickets of the order `orderId`, sold by `seller`, the buyer's new
 * e-mail (and phone: a new e-mail replaces the phone too), as a confirmation does.
 */
export function setOrderBuyerContact(db: Db, orderId: string, seller: string, contact: { email: string; phone?: string }): Step<void> {
  return step(
    db,
    sql`UPDATE tickets SET buyer_email = ${contact.email}, buyer_phone = ${contact.phone ?? null}
         WHERE order_id = ${orderId} AND sold_by = ${seller}`,
    read.nothing,
  );
}

/** The buyer's contact an order's tickets carry (null until a held order's confirmation brings it). */
export type OrderBuyerRow = { order_id: string; buyer_email: string | null; buyer_phone: string | null };

/**
 * The buyer's e-mail and phone of the orders `orderIds` (an id, or an SQL
 * query of ids) sold by `seller` (null: by anyone): for the seller's own
 * answers about its sale, never another account's.
 */
export function selectOrderBuyers(db: Db, orderIds: string | Sql, seller: string | null): Step<OrderBuyerRow[]> {
  return step(
    db,
    sql`SELECT t.order_id, max(t.buyer_email) AS buyer_email, max(t.buyer_phone) AS buyer_phone
          FROM tickets t WHERE t.order_id IN (${orderIds}) AND ${soldBy(seller)} GROUP BY t.order_id`,
    read.rows<OrderBuyerRow>(),
  );
}

/** Moves the tickets of the order `from` to the order `to` (their lines kept) while `allowed` (an SQL condition) holds. */
export function moveOrderTickets(db: Db, from: string, to: string, allowed: Sql): Step<void> {
  return step(db, sql`UPDATE tickets SET order_id = ${to} WHERE order_id = ${from} AND ${allowed}`, read.nothing);
}
