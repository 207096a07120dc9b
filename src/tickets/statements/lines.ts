// The rules a sale's lines obey together, each written once over a relation
// of lines: a request's (JSON, judged before anything is written) or an
// order's tickets (judged after). Lines for the same places count together,
// in the order of the lines; an accompanied line needs a companion.
import sql, { raw, type Sql } from "sql-template-tag";
import { categoryOf, isAccompanied, isCompanionCategory } from "../../categories/statements";
import { dayPlanOn, entryTimeAt } from "../../hours/statements";
import type { TicketLine } from "../schemas";
import { placeColumnsOf, type PlaceColumns, placeRef, type PlaceScope } from "./places";

/**
 * A line as SQL expressions: its number (its place in the request or the
 * order), its date, where it takes places and its category. A relation of
 * lines has these as the columns `line`, `ticket_date`, `ticket_type`,
 * `entry_time`, `event_id` and `category`.
 */
export type LineColumns = PlaceColumns & { line: Sql; ticketDate: Sql; category: Sql };

/** The line columns of the line `l` (an alias) of a relation of lines. */
function lineColumnsOf(l: Sql): LineColumns {
  return { ...placeColumnsOf(l), line: sql`${l}.line`, ticketDate: sql`${l}.ticket_date`, category: sql`${l}.category` };
}

/** The line columns of a written ticket `t` (its alias) of an order: its order line is its number. */
export function ticketLineColumns(t: Sql): LineColumns {
  return { ...placeColumnsOf(t), line: sql`${t}.order_line`, ticketDate: sql`${t}.ticket_date`, category: sql`${t}.category` };
}

/**
 * The entry time of a general line starting at `startTime` (SQL, `HH:mm`) on
 * `date` (SQL): its day's to decide (`entryTimeAt`), in the statement itself.
 */
const startEntryTime = (date: Sql, startTime: Sql) => entryTimeAt(dayPlanOn(date), startTime);

/** Line `index` of a request, as bound values (a line naming no category is the default's). */
export function requestLineColumns(line: TicketLine, index: number): LineColumns {
  const start = line.ticketType === "general" ? line.startTime : undefined;
  return {
    line: sql`${index}`,
    ticketDate: sql`${line.ticketDate}`,
    ticketType: sql`${line.ticketType}`,
    entryTime:
      start === undefined
        ? sql`${line.ticketType === "general" ? (line.entryTime ?? null) : null}`
        : startEntryTime(sql`${line.ticketDate}`, sql`${start}`),
    eventId: sql`${line.ticketType === "event" ? line.eventId : null}`,
    category: categoryOf(line.category),
  };
}

/**
 * A request's lines as a relation of lines (one JSON parameter, however many
 * lines). A line's start time (a reseller's) names its entry time on its day.
 */
export function requestLines(lines: readonly TicketLine[]): Sql {
  const rows = lines.map((line) => [
    line.ticketDate,
    line.ticketType,
    line.ticketType === "general" ? (line.entryTime ?? null) : null,
    line.ticketType === "event" ? line.eventId : null,
    line.category ?? null,
    line.ticketType === "general" ? (line.startTime ?? null) : null,
  ]);
  const started = lines.some((line) => line.ticketType === "general" && line.startTime !== undefined);
  const entryTime = started ? sql`coalesce(value ->> 2, ${startEntryTime(sql`value ->> 0`, sql`value ->> 5`)})` : sql`value ->> 2`;
  return sql`(SELECT key AS line, value ->> 0 AS ticket_date, value ->> 1 AS ticket_type, ${entryTime} AS entry_time,
                     value ->> 3 AS event_id, coalesce(value ->> 4, ${categoryOf(undefined)}) AS category
                FROM json_each(${JSON.stringify(rows)}))`;
}

/** The tickets of the order `orderId` (an SQL expression) for which `which` (a condition on its tickets' columns) holds, as a relation of lines. */
export function orderLines(orderId: Sql, which: Sql = sql`1`): Sql {
  return sql`(SELECT order_line AS line, ticket_date, ticket_type, entry_time, event_id, category
                FROM tickets WHERE order_id = ${orderId} AND ${which})`;
}

/**
 * The places the lines of `lines` ahead of `line` (lower numbers) take in
 * each of its scopes: lines for the same day, entry slot or event date count
 * together, in the order of the lines.
 */
export function linesAhead(lines: Sql, line: LineColumns): Record<PlaceScope, Sql> {
  const o = lineColumnsOf(raw("o"));
  const ahead = (scope: PlaceScope) =>
    sql`(SELECT count(*) FROM ${lines} o WHERE o.line < ${line.line} AND o.ticket_date = ${line.ticketDate}
            AND ${placeRef(o, scope)} = ${placeRef(line, scope)})`;
  return { day: ahead("day"), slot: ahead("slot"), event: ahead("event") };
}

/**
 * True when the line `m` accompanies the line `c`: a line of a category
 * that is not accompanied, for the same date, event (or general entry) and
 * entry time.
 */
export function accompanies(m: LineColumns, c: LineColumns): Sql {
  return sql`(${m.ticketDate} = ${c.ticketDate} AND ${m.eventId} IS ${c.eventId} AND ${m.entryTime} IS ${c.entryTime}
              AND ${isCompanionCategory(m.category)})`;
}

/** True when the line `c` is of an accompanied category and no other line of `lines` accompanies it. */
export function lacksCompanion(lines: Sql, c: LineColumns): Sql {
  const m = lineColumnsOf(raw("m"));
  return sql`(${isAccompanied(c.category)} AND NOT EXISTS (SELECT 1 FROM ${lines} m WHERE m.line <> ${c.line} AND ${accompanies(m, c)}))`;
}
