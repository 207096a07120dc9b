// The conditions a ticket line must meet to be sold, each named once. The
// sale's insert requires them all, in its own statement (nothing can slip
// between a check and the write); a refused sale is explained by evaluating
// the same conditions one by one (refusal.ts).
import sql, { join, raw, type Sql } from "sql-template-tag";
import { categoryOf, categoryOnSale } from "../categories/statements";
import { activeEventOn } from "../events/statements";
import { dayPlanOn, isSlotStart, minutesPastMidnight, planField, salesEndOf, slotEndOf } from "../hours/statements";
import { type Db, read, type Step, step } from "../platform/batch";
import type { MuseumNow } from "../platform/dates";
import { sqlMuseumInstant } from "../platform/sql";
import type { TicketLine } from "../tickets/schemas";
import { lacksCompanion, type LineColumns } from "../tickets/statements/lines";
import { placesTaken } from "../tickets/statements/places";
import type { TicketColumns } from "../tickets/statements/rows";

/** The names of the sale's conditions, in the order a refusal is explained. */
export const CONDITIONS = {
  general: [
    "category-on-sale", "accompanied-line-has-companion",
    "day-on-sale", "entry-time-fits-day", "entry-time-is-slot", "slot-on-sale", "day-room", "slot-room",
  ],
  event: ["category-on-sale", "accompanied-line-has-companion", "event-on-date", "event-room"],
} as const;
export type ConditionName = (typeof CONDITIONS)[keyof typeof CONDITIONS][number];

/**
 * Places that lines before this one in the same request take in each scope
 * and that the database has not counted yet: none when the lines are written
 * (each insert sees the ones before it), all of them when a refusal is explained.
 */
export type PlacesAhead<Count = number> = { day: Count; slot: Count; event: Count };

export const NONE_AHEAD: PlacesAhead = { day: 0, slot: 0, event: 0 };

/** A line's conditions: the row they are judged on (`from`) and each condition by name. */
export type LineConditions = { from: Sql; holds: Partial<Record<ConditionName, Sql>> };

const PLAN = raw("d.plan");

/** True while tickets for `date` ending at `end` (SQL `HH:mm`) are still sold at `now`: a later day, or today before `end`. */
function onSaleUntil(date: Sql, end: Sql, now: MuseumNow): Sql {
  return sql`(${date} > ${now.today} OR (${date} = ${now.today} AND ${now.time} < ${end}))`;
}

/**
 * True while a ticket (its columns) could still be sold at `now`: an event
 * ticket all day, a general one until its day's closing, a timed one until
 * its slot ends. A box-office cancellation is possible exactly as long.
 */
export function stillOnSale(ticket: TicketColumns, now: MuseumNow): Sql {
  const end = salesEndOf(dayPlanOn(ticket.ticketDate), ticket.entryTime);
  return sql`(CASE WHEN ${ticket.ticketType} = 'event' THEN ${ticket.ticketDate} >= ${now.today}
                   ELSE ${onSaleUntil(ticket.ticketDate, end, now)} END)`;
}

/** Room under a limit (`limit` SQL, NULL: none) for one more place after `taken` and `ahead`. */
const roomFor = (limit: Sql, taken: Sql, ahead: number | Sql) => sql`(${limit} IS NULL OR ${taken} + ${ahead} < ${limit})`;

/** What the conditions are judged on, as SQL: a request line's values, or a written ticket's columns. */
type LineFacts = { ticketDate: Sql; eventId: Sql; entryTime: Sql };

function eventConditions(line: LineFacts, ahead: PlacesAhead<number | Sql>): LineConditions {
  const event = activeEventOn(line.eventId, line.ticketDate);
  const taken = placesTaken(line.ticketDate, "event", line.eventId);
  return {
    from: sql`(SELECT 1)`,
    holds: {
      "event-on-date": sql`EXISTS (${event})`,
      "event-room": sql`coalesce((SELECT ${roomFor(raw("ev.capacity"), taken, ahead.event)} FROM (${event}) ev), 0)`,
    },
  };
}

/** A line of a request among all of its lines (a relation of lines: tickets' lines.ts). */
export type RequestLine = { line: TicketLine; columns: LineColumns; lines: Sql };

/**
 * The conditions every line meets, whatever its type: its category is on
 * sale, and an accompanied one has a companion among the request's lines.
 */
function categoryConditions({ line, columns, lines }: RequestLine) {
  return {
    "category-on-sale": categoryOnSale(categoryOf(line.category)),
    "accompanied-line-has-companion": sql`NOT ${lacksCompanion(lines, columns)}`,
  };
}

/** The conditions of selling a request's line at `now`, after `ahead`. */
export function conditionsOf(request: RequestLine, now: MuseumNow, ahead: PlacesAhead<number | Sql>): LineConditions {
  const { line } = request;
  const place =
    line.ticketType === "event"
      ? eventConditions({ ticketDate: sql`${line.ticketDate}`, eventId: sql`${line.eventId}`, entryTime: sql`NULL` }, ahead)
      : generalConditions({ ticketDate: sql`${line.ticketDate}`, eventId: sql`NULL`, entryTime: sql`${line.entryTime ?? null}` }, now, ahead);
  return { from: place.from, holds: { ...categoryConditions(request), ...place.holds } };
}

/**
 * True when the written ticket `t` (its columns: `t.ticket_type`…) could be
 * sold again at `now`, every condition of its line holding, after `ahead`:
 * what a late confirmation requires of each held ticket.
 */
export function ticketSellable(t: Sql, now: MuseumNow, ahead: PlacesAhead<Sql>): Sql {
  const line = { ticketDate: sql`${t}.ticket_date`, eventId: sql`${t}.event_id`, entryTime: sql`${t}.entry_time` };
  const all = (conditions: LineConditions) => sql`coalesce((SELECT ${allOf(conditions)} FROM ${conditions.from}), 0)`;
  return sql`(CASE WHEN ${t}.ticket_type = 'event' THEN ${all(eventConditions(line, ahead))}
                   ELSE ${all(generalConditions(line, now, ahead))} END)`;
}

/**
 * The instant (a timestamp) at which a ticket (its columns) stops being
 * sold: its day's closing for a general ticket, its slot's end for a timed
 * one, the end of its day for an event ticket, by the museum's clock (its
 * offset from UTC at `now`). NULL when its day is closed.
 */
export function salesEndInstant(ticket: TicketColumns, now: MuseumNow): Sql {
  const end = salesEndOf(dayPlanOn(ticket.ticketDate), ticket.entryTime);
  const endMinutes = sql`(CASE WHEN ${ticket.ticketType} = 'event' THEN ${24 * 60} ELSE ${minutesPastMidnight(end)} END)`;
  return sqlMuseumInstant(ticket.ticketDate, endMinutes, now);
}

function generalConditions(line: LineFacts, now: MuseumNow, ahead: PlacesAhead<number | Sql>): LineConditions {
  const date = line.ticketDate;
  const entry = line.entryTime;
  return {
    from: sql`(SELECT ${dayPlanOn(date)} AS plan) d`,
    holds: {
      "day-on-sale": sql`(${PLAN} IS NOT NULL AND ${onSaleUntil(date, planField(PLAN, "timeClose"), now)})`,
      "entry-time-fits-day": sql`((${planField(PLAN, "entrySlotMinutes")} IS NULL) = (${entry} IS NULL))`,
      "entry-time-is-slot": sql`(${entry} IS NULL OR ${isSlotStart(PLAN, entry)})`,
      "slot-on-sale": sql`(${entry} IS NULL OR ${onSaleUntil(date, slotEndOf(PLAN, entry), now)})`,
      "day-room": roomFor(planField(PLAN, "capacity"), placesTaken(date, "day", sql`''`), ahead.day),
      "slot-room": roomFor(planField(PLAN, "slotCapacity"), placesTaken(date, "slot", entry), ahead.slot),
    },
  };
}

/** Every condition of a line together: what its insert requires. */
export function allOf(conditions: LineConditions): Sql {
  return join(Object.values(conditions.holds) as Sql[], " AND ");
}

/**
 * Reads, one by one, whether each of a line's conditions holds now (1 or 0,
 * by name), and the figures `also` names (SQL expressions) with them.
 */
export function selectConditions(db: Db, conditions: LineConditions, also: Record<string, Sql> = {}): Step<Record<string, number>> {
  const columns = Object.entries(conditions.holds).map(([name, holds]) => sql`coalesce(${holds}, 0) AS ${raw(`"${name}"`)}`);
  const figures = Object.entries(also).map(([name, figure]) => sql`${figure} AS ${raw(`"${name}"`)}`);
  return step(db, sql`SELECT ${join([...columns, ...figures])} FROM ${conditions.from}`, (result) => read.first<Record<string, number>>()(result)!);
}
