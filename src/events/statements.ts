// The events feature's tables (special_events, special_event_dates): every
// statement on them, and the read fragments other features may put in theirs.
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { toCents } from "../platform/money";
import { SQL_NOW, sqlAmount } from "../platform/sql";
import { categoryOnSale } from "../categories/statements";
import type { CategoryPrices, CreateSpecialEventRequest, SpecialEvent, UpdateSpecialEventRequest } from "./schemas";

/**
 * An event as one JSON text, in the shape GET returns (`SpecialEvent`): the
 * one rendering of an event, read by GET and recorded as a publishNewEvent
 * delivery's body. `e` is the special_events row. Dates come sorted; a whole
 * price is a JSON integer, as JavaScript writes it; `capacity` and
 * `categoryPrices` (by category id) only when set (a merge patch drops a null member).
 */
const EVENT_JSON = sql`json_patch(json_object('eventId', e.event_id, 'name', e.name, 'location', e.location,
    'eventDescription', e.description,
    'dates', json((SELECT json_group_array(event_date)
                FROM (SELECT event_date FROM special_event_dates WHERE event_id = e.event_id ORDER BY event_date))),
    'price', CASE WHEN e.price_cents % 100 = 0 THEN e.price_cents / 100 ELSE e.price_cents / 100.0 END),
  json_object('capacity', e.capacity,
    'categoryPrices', json((SELECT CASE WHEN count(*) > 0 THEN json_group_object(category_id, amount) END
                              FROM (SELECT category_id, ${sqlAmount(raw("price_cents"))} AS amount
                                      FROM special_event_category_prices WHERE event_id = e.event_id ORDER BY category_id)))))`;

function parseEvent(json: string): SpecialEvent {
  return JSON.parse(json) as SpecialEvent;
}

const readEvent = (result: D1Result): SpecialEvent | null => {
  const row = read.first<{ event: string }>()(result);
  return row && parseEvent(row.event);
};

/** The active (not deleted) event `eventId`, or null. */
export function selectActiveEvent(db: Db, eventId: string): Step<SpecialEvent | null> {
  return step(
    db,
    sql`SELECT ${EVENT_JSON} AS event FROM special_events e WHERE e.event_id = ${eventId} AND e.cancelled_at IS NULL`,
    readEvent,
  );
}

/** An active event a sale names, and the dates of the sale it takes place on (`eventTakesPlaceOn`). */
export type EventForSale = { event: SpecialEvent; takesPlaceOn: IsoDate[] };

/** The active event `eventId` and which of `dates` it takes place on, or null. */
export function selectEventForSale(db: Db, eventId: string, dates: readonly IsoDate[]): Step<EventForSale | null> {
  return step(
    db,
    sql`SELECT ${EVENT_JSON} AS event,
               (SELECT json_group_array(j.value) FROM json_each(${JSON.stringify(dates)}) j
                 WHERE ${eventTakesPlaceOn(eventId, raw("j.value"))}) AS takes_place_on
          FROM special_events e WHERE e.event_id = ${eventId} AND e.cancelled_at IS NULL`,
    (result) => {
      const row = read.first<{ event: string; takes_place_on: string }>()(result);
      return row && { event: parseEvent(row.event), takesPlaceOn: JSON.parse(row.takes_place_on) as IsoDate[] };
    },
  );
}

/**
 * A SELECT of one `payload` column: the active event `eventId` as GET
 * returns it, or no row. For the webhook outbox's insert, in the batch that
 * changes the event (so it reads the event as changed).
 */
export function eventPayload(eventId: string): Sql {
  return sql`SELECT ${EVENT_JSON} AS payload FROM special_events e
    WHERE e.event_id = ${eventId} AND e.cancelled_at IS NULL`;
}

/** True while `eventId` (an SQL expression) names an active event. */
export function eventIsActive(eventId: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM special_events WHERE event_id = ${eventId} AND cancelled_at IS NULL)`;
}

/** The name of the event `eventId` (an SQL expression, e.g. a column), deleted or not; NULL for none. */
export function eventName(eventId: Sql): Sql {
  return sql`(SELECT name FROM special_events WHERE event_id = ${eventId})`;
}

/**
 * A row source of the active events that take place on `date`, each once:
 * `(event_id, name, price_cents, capacity)`; only `eventId`'s, when given.
 */
export function activeEventsOn(date: IsoDate | Sql, eventId?: string | Sql): Sql {
  return sql`SELECT e.event_id, e.name, e.price_cents, e.capacity
    FROM special_event_dates d JOIN special_events e ON e.event_id = d.event_id
   WHERE d.event_date = ${date} AND e.cancelled_at IS NULL${eventId === undefined ? sql`` : sql` AND e.event_id = ${eventId}`}`;
}

/** True while `eventId` names an active event that takes place on `date`: an event ticket's day. */
export function eventTakesPlaceOn(eventId: string | Sql, date: IsoDate | Sql): Sql {
  return sql`EXISTS (${activeEventsOn(date, eventId)})`;
}

/**
 * The price (cents) of a ticket for the event `eventId` in the category
 * `categoryId` (SQL expressions): its price for that category, else the event's.
 */
export function eventPrice(eventId: Sql, categoryId: Sql): Sql {
  return sql`coalesce((SELECT price_cents FROM special_event_category_prices WHERE event_id = ${eventId} AND category_id = ${categoryId}),
                      (SELECT price_cents FROM special_events WHERE event_id = ${eventId}))`;
}

/**
 * The categories of `prices` the event `eventId` may not price (a SELECT of
 * `category_id`): neither active nor one it already has.
 */
function unpriceableCategories(eventId: string, prices: CategoryPrices): Sql {
  return sql`SELECT p.key AS category_id FROM json_each(${JSON.stringify(prices)}) p
    WHERE NOT ${categoryOnSale(raw("p.key"))}
      AND NOT EXISTS (SELECT 1 FROM special_event_category_prices WHERE event_id = ${eventId} AND category_id = p.key)`;
}

/** True when `prices` names a category the active event `eventId` may not price (for a guard before the write). */
export function categoryPricesRefused(eventId: string, prices: CategoryPrices): Sql {
  return sql`EXISTS (${unpriceableCategories(eventId, prices)})`;
}

export function selectUnpriceableCategories(db: Db, eventId: string, prices: CategoryPrices): Step<string[]> {
  return step(db, unpriceableCategories(eventId, prices), (result) =>
    read.rows<{ category_id: string }>()(result).map((row) => row.category_id),
  );
}

/** The statements that replace the active event `eventId`'s prices per category (null: removes them). */
export function replaceCategoryPrices(db: Db, eventId: string, prices: CategoryPrices | null): Step<void>[] {
  const active = eventIsActive(sql`${eventId}`);
  const steps = [step(db, sql`DELETE FROM special_event_category_prices WHERE event_id = ${eventId} AND ${active}`, read.nothing)];
  if (prices) {
    const rows = JSON.stringify(Object.entries(prices).map(([categoryId, price]) => [categoryId, toCents(price)]));
    steps.push(
      step(
        db,
        sql`INSERT INTO special_event_category_prices (event_id, category_id, price_cents)
            SELECT ${eventId}, value ->> 0, value ->> 1 FROM json_each(${rows}) WHERE ${active}`,
        read.nothing,
      ),
    );
  }
  return steps;
}

/** A new event and its id. */
type NewEvent = CreateSpecialEventRequest & { eventId: string };

// Events and their dates arrive as one JSON parameter: D1 allows 100 bound
// parameters per statement, an event may have 366 dates, and a load (the
// bench's seed) writes thousands of events per statement.
function insertDates(events: { eventId: string; dates: IsoDate[] }[]): Sql {
  const rows = JSON.stringify(events.map(({ eventId, dates }) => ({ eventId, dates })));
  return sql`INSERT INTO special_event_dates (event_id, event_date, event_name)
    SELECT e.event_id, d.value, e.name
      FROM json_each(${rows}) n JOIN special_events e ON e.event_id = n.value ->> 'eventId', json_each(n.value -> 'dates') d
     WHERE e.cancelled_at IS NULL`;
}

/**
 * The statements that create events and their dates (two, however many events).
 * @public (used by the tools, which bundle this file)
 */
export function insertEvents(db: Db, events: NewEvent[]): Step<void>[] {
  const rows = JSON.stringify(
    events.map((e) => ({
      eventId: e.eventId,
      name: e.name,
      location: e.location,
      description: e.eventDescription,
      priceCents: toCents(e.price),
      capacity: e.capacity ?? null,
    })),
  );
  return [
    step(
      db,
      sql`INSERT INTO special_events (event_id, name, location, description, price_cents, capacity)
          SELECT value ->> 'eventId', value ->> 'name', value ->> 'location', value ->> 'description',
                 value ->> 'priceCents', value ->> 'capacity'
            FROM json_each(${rows})`,
      read.nothing,
    ),
    step(db, insertDates(events), read.nothing),
  ];
}

/** The statements that create an event and its dates. */
export function insertEvent(db: Db, eventId: string, input: CreateSpecialEventRequest): Step<void>[] {
  return insertEvents(db, [{ ...input, eventId }]);
}

/**
 * The statements that apply the fields present in `changes` to an active
 * event. Only the dates dropped are deleted (a date with valid tickets cannot
 * be: a trigger refuses it, see migrations/0009_admissions.sql) and only new
 * ones inserted.
 */
export function updateEventFields(db: Db, eventId: string, changes: UpdateSpecialEventRequest): Step<void>[] {
  const active = eventIsActive(sql`${eventId}`);
  const steps = [
    step(
      db,
      sql`UPDATE special_events
             SET name = coalesce(${changes.name ?? null}, name), location = coalesce(${changes.location ?? null}, location),
                 description = coalesce(${changes.eventDescription ?? null}, description),
                 price_cents = coalesce(${changes.price === undefined ? null : toCents(changes.price)}, price_cents),
                 capacity = CASE WHEN ${changes.capacity !== undefined} THEN ${changes.capacity ?? null} ELSE capacity END,
                 updated_at = ${SQL_NOW}
           WHERE event_id = ${eventId} AND cancelled_at IS NULL`,
      read.nothing,
    ),
  ];
  if (changes.dates) {
    const dates = JSON.stringify(changes.dates);
    steps.push(
      step(
        db,
        sql`DELETE FROM special_event_dates
             WHERE event_id = ${eventId} AND ${active} AND event_date NOT IN (SELECT value FROM json_each(${dates}))`,
        read.nothing,
      ),
      step(db, sql`${insertDates([{ eventId, dates: changes.dates }])} ON CONFLICT DO NOTHING`, read.nothing),
    );
  }
  if (changes.name !== undefined) {
    steps.push(
      step(
        db,
        sql`UPDATE special_event_dates SET event_name = ${changes.name} WHERE event_id = ${eventId} AND ${active}`,
        read.nothing,
      ),
    );
  }
  return steps;
}

/** Cancels an event (it disappears from the API; its row and dates stay). Reads whether it was active. */
export function markEventCancelled(db: Db, eventId: string): Step<boolean> {
  return step(
    db,
    sql`UPDATE special_events SET cancelled_at = ${SQL_NOW}, updated_at = ${SQL_NOW}
         WHERE event_id = ${eventId} AND cancelled_at IS NULL`,
    (result) => read.changes(result) > 0,
  );
}

export type EventWindow = {
  startDate: IsoDate;
  endDate: IsoDate;
  limit: number;
  offset: number;
};

/**
 * Active events with a date in [startDate, endDate], ordered by their first
 * date in the window, then name (byte order), then id.
 *
 * The scan walks special_event_dates_by_date in that very order and keeps a
 * row only when it is its event's first date in the window (the NOT EXISTS
 * probe is a primary-key lookup), so it stops after offset + limit events
 * however many are stored. Exported for the query-plan test.
 * @public (used by the tools, which bundle this file)
 */
export function eventsInWindowQuery(window: EventWindow): Sql {
  return sql`SELECT ${EVENT_JSON} AS event
     FROM special_event_dates d
     JOIN special_events e ON e.event_id = d.event_id
    WHERE d.event_date BETWEEN ${window.startDate} AND ${window.endDate}
      AND NOT EXISTS (SELECT 1 FROM special_event_dates earlier
                       WHERE earlier.event_id = d.event_id
                         AND earlier.event_date >= ${window.startDate} AND earlier.event_date < d.event_date)
      AND e.cancelled_at IS NULL
    ORDER BY d.event_date, d.event_name, d.event_id
    LIMIT ${window.limit} OFFSET ${window.offset}`;
}

export function listEventsInWindow(db: Db, window: EventWindow): Step<SpecialEvent[]> {
  return step(db, eventsInWindowQuery(window), (result) =>
    read.rows<{ event: string }>()(result).map((row) => parseEvent(row.event)),
  );
}
