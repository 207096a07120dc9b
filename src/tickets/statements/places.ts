// Places (the ticket_places table, kept by the triggers of migrations/0024):
// where a ticket takes places, what is taken in each scope less the holds
// that ran out, the places a sale's lines ahead of one take, and the limits
// a change may not set below what is taken.
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import { holdRanOut } from "./rows";

/** Where places are counted (ticket_places.scope): a day's general tickets, an entry slot's, an event's. */
export type PlaceScope = "day" | "slot" | "event";

/** What decides where a ticket, or a sale's line, takes places: its columns (SQL expressions). */
export type PlaceColumns = { ticketType: Sql; entryTime: Sql; eventId: Sql };

/** The place columns of the ticket, or line, `t` (its alias). */
export const placeColumnsOf = (t: Sql): PlaceColumns => ({
  ticketType: sql`${t}.ticket_type`,
  entryTime: sql`${t}.entry_time`,
  eventId: sql`${t}.event_id`,
});

/** Where a ticket takes places in each scope (its ref there, NULL: none), as `placeRef` states it. */
const REF_IN: Record<PlaceScope, (t: PlaceColumns) => Sql> = {
  day: (t) => sql`(CASE WHEN ${t.ticketType} = 'general' THEN '' END)`,
  slot: (t) => t.entryTime,
  event: (t) => sql`(CASE WHEN ${t.ticketType} = 'event' THEN ${t.eventId} END)`,
};

/**
 * Where a ticket takes places, the one rule of it: its ref in `scope` (a
 * scope, or an SQL expression of a scope's name), NULL where it takes none.
 * A general ticket takes one in its day's ('') and, timed, in its entry
 * slot's (its entry time); an event ticket in its event's (the event's id).
 * The triggers that count places read the view ticket_place_refs, which is
 * this fragment for an SQL scope (migrations/0024;
 * test/tickets/place-scopes.test.ts holds them together).
 */
export function placeRef(t: PlaceColumns, scope: PlaceScope | Sql): Sql {
  if (typeof scope === "string") return REF_IN[scope](t);
  return sql`(CASE ${scope} WHEN 'day' THEN ${REF_IN.day(t)} WHEN 'slot' THEN ${REF_IN.slot(t)} WHEN 'event' THEN ${REF_IN.event(t)} END)`;
}

/** True for a ticket `t` of the scope `scope` of `ref` (SQL expressions). */
function inScope(t: Sql, scope: PlaceScope | Sql, ref: Sql): Sql {
  return sql`${placeRef(placeColumnsOf(t), scope)} = ${ref}`;
}

/**
 * The holds that ran out on `date` in a scope: ticket_places still counts
 * them (nothing records their end), every read of places subtracts them, so
 * their places are free at hold_until exactly. Reads the few rows of the
 * partial index tickets_on_hold.
 */
function expiredHolds(date: Sql, scope: PlaceScope | Sql, ref: Sql): Sql {
  const h = raw("h");
  return sql`(SELECT count(*) FROM tickets h INDEXED BY tickets_on_hold
               WHERE h.ticket_date = ${date} AND ${holdRanOut(h)} AND ${inScope(h, scope, ref)})`;
}

/**
 * Places taken on `date` in a scope (`ref` an SQL expression): valid,
 * admitted and live held tickets. One primary-key read, however many were
 * sold, and the day's holds that ran out.
 */
export function placesTaken(date: Sql, scope: PlaceScope, ref: Sql): Sql {
  return sql`(coalesce((SELECT taken FROM ticket_places WHERE ticket_date = ${date} AND scope = ${scope} AND ref = ${ref}), 0)
              - ${expiredHolds(date, scope, ref)})`;
}

/** Places taken on `date`, per scope: the day's general tickets, each slot's, each event's. */
type PlacesTaken = { day: number; slots: Map<string, number>; events: Map<string, number> };

type PlacesRow = { scope: PlaceScope; ref: string; taken: number };

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
 * A limit on places, for a change that sets one: in `scope` (of `ref`
 * only, when given), from `from` on, at most `limit(date)` places (an SQL
 * expression of the date column; NULL: no limit).
 */
export type PlaceLimit = {
  scope: PlaceScope;
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
