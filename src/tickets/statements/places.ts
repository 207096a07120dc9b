// Places (the ticket_places table, kept by the triggers of migrations/0011
// and 0015): what is taken in each scope, less the holds that ran out, and
// the limits a change may not set below it.
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import { holdRanOut } from "./rows";

/** Where places are counted: a day's general tickets, an entry slot's, an event date's. */
export type PlaceScope = { scope: "day" } | { scope: "slot"; entryTime: string } | { scope: "event"; eventId: string };

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

/** Places taken on `date`, per scope: the day's general tickets, each slot's, each event's. */
type PlacesTaken = { day: number; slots: Map<string, number>; events: Map<string, number> };

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
