// The conditions a ticket line must meet to be sold, each named once. The
// sale's insert requires them all, in its own statement (nothing can slip
// between a check and the write); a refused sale is explained by evaluating
// the same conditions one by one (refusal.ts); what is still on sale and the
// room left under each limit are answered from the same fragments
// (availability.ts), and so is how long a ticket is sold (box office, holds).
import sql, { join, raw, type Sql } from "sql-template-tag";
import { categoryOf, categoryOnSale } from "../categories/statements";
import { activeEventsOn, eventTakesPlaceOn } from "../events/statements";
import { dayPlanOn, entryTimeAt, hasTimedEntry, isSlotStart, minutesPastMidnight, planField, salesEndOf } from "../hours/statements";
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
    "day-on-sale", "start-time-fits-day", "entry-time-fits-day", "entry-time-is-slot", "slot-on-sale", "day-room", "slot-room",
  ],
  event: ["category-on-sale", "accompanied-line-has-companion", "event-on-sale", "event-on-date", "event-room"],
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

/**
 * A ticket's type as a sale's statement knows it: a type fixed when the
 * statement is built (a request's line), or its column (a written ticket).
 */
type TypeOf = "general" | "event" | Sql;

/**
 * When tickets of a day stop being sold (`HH:mm`, `24:00` the day's end;
 * NULL when it is closed): an event ticket's at the end of its day, a
 * general one's at its day's closing (`plan`, JSON), a timed one's at the
 * end of its slot (`entryTime`; null: a ticket known to have none).
 */
function salesEnd(ticketType: TypeOf, plan: Sql, entryTime: Sql | null): Sql {
  const endOfDay = sql`'24:00'`;
  if (ticketType === "event") return endOfDay;
  const general = salesEndOf(plan, entryTime);
  return ticketType === "general" ? general : sql`(CASE WHEN ${ticketType} = 'event' THEN ${endOfDay} ELSE ${general} END)`;
}

/** True while tickets for `date` whose sales end at `end` (`HH:mm`) are still sold at `now`: a later day, or today before the end. */
function onSale(date: Sql, end: Sql, now: MuseumNow): Sql {
  return sql`(${date} > ${now.today} OR (${date} = ${now.today} AND ${now.time} < ${end}))`;
}

/** True while general tickets for `date` are sold at `now` on a day of `plan` (JSON, NULL: closed): the condition `day-on-sale`. */
export function dayOnSale(date: Sql, plan: Sql, now: MuseumNow): Sql {
  return sql`(${plan} IS NOT NULL AND ${onSale(date, salesEnd("general", plan, null), now)})`;
}

/** True while the slot of `plan` (JSON) starting at `entryTime` on `date` is sold at `now`: the condition `slot-on-sale` of a timed line. */
export function slotOnSale(date: Sql, plan: Sql, entryTime: Sql, now: MuseumNow): Sql {
  return onSale(date, salesEnd("general", plan, entryTime), now);
}

/** True while tickets for an event on `date` are sold at `now`, all day: the condition `event-on-sale`. */
export function eventOnSale(date: Sql, now: MuseumNow): Sql {
  return onSale(date, salesEnd("event", sql`NULL`, null), now);
}

/**
 * True while a ticket (its columns) could still be sold at `now`: an event
 * ticket all day, a general one until its day's closing, a timed one until
 * its slot ends. A box-office cancellation is possible exactly as long.
 */
export function stillOnSale(ticket: TicketColumns, now: MuseumNow): Sql {
  return onSale(ticket.ticketDate, salesEnd(ticket.ticketType, dayPlanOn(ticket.ticketDate), ticket.entryTime), now);
}

/** The room left under a limit (`limit`, NULL: none) with `taken` places taken: NULL for no limit, never below 0. */
export function roomLeft(limit: Sql, taken: Sql): Sql {
  return sql`(CASE WHEN ${limit} IS NULL THEN NULL ELSE max(0, ${limit} - ${taken}) END)`;
}

/** True when `room` (as `roomLeft` gives it) has a place for one more after `ahead`. */
const roomFor = (room: Sql, ahead: number | Sql) => sql`coalesce(${room} > ${ahead}, 1)`;

/**
 * What the conditions are judged on, as SQL: a request line's values, or a
 * written ticket's columns. `startTime` (absent: none) stands for the entry
 * time it names on the day (`entryTimeAt`); `entryTime` null is a line known
 * to name none (its conditions on an entry time hold without a test).
 */
type LineFacts = { ticketDate: Sql; eventId: Sql; entryTime: Sql | null; startTime?: Sql };

function eventConditions(line: LineFacts, now: MuseumNow, ahead: PlacesAhead<number | Sql>): LineConditions {
  const event = activeEventsOn(line.ticketDate, line.eventId);
  const taken = placesTaken(line.ticketDate, "event", line.eventId);
  return {
    from: sql`(SELECT 1)`,
    holds: {
      "event-on-sale": eventOnSale(line.ticketDate, now),
      "event-on-date": eventTakesPlaceOn(line.eventId, line.ticketDate),
      "event-room": sql`coalesce((SELECT ${roomFor(roomLeft(raw("ev.capacity"), taken), ahead.event)} FROM (${event}) ev), 0)`,
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
      ? eventConditions({ ticketDate: sql`${line.ticketDate}`, eventId: sql`${line.eventId}`, entryTime: null }, now, ahead)
      : generalConditions(
          {
            ticketDate: sql`${line.ticketDate}`,
            eventId: sql`NULL`,
            entryTime: line.entryTime === undefined ? null : sql`${line.entryTime}`,
            ...(line.startTime === undefined ? {} : { startTime: sql`${line.startTime}` }),
          },
          now,
          ahead,
        );
  // A start time's entry time, judged on the row of its day's plan (one plan read, its date bound once).
  const columns = line.ticketType === "general" && line.startTime !== undefined ? { ...request.columns, entryTime: entryTimeOfLine(line) } : request.columns;
  return { from: place.from, holds: { ...categoryConditions({ ...request, columns }), ...place.holds } };
}

/**
 * True when the written ticket `t` (its columns: `t.ticket_type`…) could be
 * sold again at `now`, every condition of its line holding, after `ahead`:
 * what a late confirmation requires of each held ticket.
 */
export function ticketSellable(t: Sql, now: MuseumNow, ahead: PlacesAhead<Sql>): Sql {
  const line = { ticketDate: sql`${t}.ticket_date`, eventId: sql`${t}.event_id`, entryTime: sql`${t}.entry_time` };
  const all = (conditions: LineConditions) => sql`coalesce((SELECT ${allOf(conditions)} FROM ${conditions.from}), 0)`;
  return sql`(CASE WHEN ${t}.ticket_type = 'event' THEN ${all(eventConditions(line, now, ahead))}
                   ELSE ${all(generalConditions(line, now, ahead))} END)`;
}

/** The instant (a timestamp) of `end` (`HH:mm`, NULL: none) on `date`, by the museum's clock (its offset from UTC at `now`). */
const instantOf = (date: Sql, end: Sql, now: MuseumNow) => sqlMuseumInstant(date, minutesPastMidnight(end), now);

/**
 * The instant (a timestamp) at which a ticket (its columns) stops being
 * sold: its day's closing for a general ticket, its slot's end for a timed
 * one, the end of its day for an event ticket, by the museum's clock (its
 * offset from UTC at `now`). NULL when its day is closed.
 */
export function salesEndInstant(ticket: TicketColumns, now: MuseumNow): Sql {
  return instantOf(ticket.ticketDate, salesEnd(ticket.ticketType, dayPlanOn(ticket.ticketDate), ticket.entryTime), now);
}

/**
 * `salesEndInstant` of a request's line, on the row of its conditions'
 * `from` (its day's plan read once, with the conditions): what a hold of it
 * may not outlast.
 */
export function lineSalesEndInstant(line: TicketLine, now: MuseumNow): Sql {
  const date = sql`${line.ticketDate}`;
  if (line.ticketType === "event") return instantOf(date, salesEnd("event", sql`NULL`, null), now);
  const timed = line.startTime !== undefined || line.entryTime !== undefined;
  return instantOf(date, salesEnd("general", PLAN, timed ? entryTimeOfLine(line) : null), now);
}

function generalConditions(line: LineFacts, now: MuseumNow, ahead: PlacesAhead<number | Sql>): LineConditions {
  const date = line.ticketDate;
  const start = line.startTime;
  const entry = start === undefined ? line.entryTime : entryTimeAt(PLAN, start);
  const always = sql`1`;
  return {
    from: sql`(SELECT ${dayPlanOn(date)} AS plan) d`,
    holds: {
      "day-on-sale": dayOnSale(date, PLAN, now),
      "start-time-fits-day": start === undefined ? always : sql`(${hasTimedEntry(PLAN)} OR ${start} = ${planField(PLAN, "timeOpen")})`,
      "entry-time-fits-day": entry === null ? sql`NOT ${hasTimedEntry(PLAN)}` : sql`(${hasTimedEntry(PLAN)} = (${entry} IS NOT NULL))`,
      "entry-time-is-slot": entry === null ? always : sql`(${entry} IS NULL OR ${isSlotStart(PLAN, entry)})`,
      "slot-on-sale": entry === null ? always : sql`(${entry} IS NULL OR ${slotOnSale(date, PLAN, entry, now)})`,
      "day-room": roomFor(roomLeft(planField(PLAN, "capacity"), placesTaken(date, "day", sql`''`)), ahead.day),
      "slot-room": roomFor(roomLeft(planField(PLAN, "slotCapacity"), placesTaken(date, "slot", entry ?? sql`NULL`)), ahead.slot),
    },
  };
}

/**
 * A line's entry time as its insert writes it (an SQL expression on the row
 * of its conditions' `from`): the entry time it names, the one its start
 * time names on its day (`entryTimeAt`), or none.
 */
export function entryTimeOfLine(line: TicketLine): Sql {
  if (line.ticketType !== "general") return sql`NULL`;
  return line.startTime === undefined ? sql`${line.entryTime ?? null}` : entryTimeAt(PLAN, sql`${line.startTime}`);
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
