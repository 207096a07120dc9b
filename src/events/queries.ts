import type { BatchRunner, Db } from "../env";
import type { IsoDate } from "../platform/dates";
import { SQL_NOW } from "../platform/sql";
import type { CreateSpecialEventRequest, SpecialEvent, UpdateSpecialEventRequest } from "./schemas";

type EventRow = {
  event_id: string;
  name: string;
  location: string;
  description: string;
  price_cents: number;
  /** JSON array of the event's dates. */
  dates: string;
};

const EVENT_COLUMNS = `e.event_id, e.name, e.location, e.description, e.price_cents,
  (SELECT json_group_array(event_date)
     FROM (SELECT event_date FROM special_event_dates
            WHERE event_id = e.event_id ORDER BY event_date)) AS dates`;

// Dates arrive as one JSON array parameter: D1 allows 100 bound parameters per
// statement and an event may have 366 dates.
const INSERT_DATES = `INSERT INTO special_event_dates (event_id, event_date, event_name)
  SELECT e.event_id, d.value, e.name
    FROM special_events e, json_each(?2) d
   WHERE e.event_id = ?1 AND e.cancelled_at IS NULL`;

function toCents(price: number): number {
  return Math.round(price * 100);
}

function toSpecialEvent(row: EventRow): SpecialEvent {
  return {
    eventId: row.event_id,
    name: row.name,
    location: row.location,
    eventDescription: row.description,
    dates: (JSON.parse(row.dates) as string[]).sort(),
    price: row.price_cents / 100,
  };
}

/**
 * The active event ?1 as one JSON text `payload`, in the shape GET returns
 * (SpecialEvent), read from the very columns GET reads (EVENT_COLUMNS): the
 * body of a publishNewEvent delivery, recorded by the webhook outbox in the
 * batch that changes the event. The price is a JSON real (`60.0`); it reads
 * as the same number.
 */
export const EVENT_PAYLOAD_SQL = `SELECT json_object('eventId', event_id, 'name', name, 'location', location,
    'eventDescription', description, 'dates', json(dates), 'price', price_cents / 100.0) AS payload
  FROM (SELECT ${EVENT_COLUMNS} FROM special_events e WHERE e.event_id = ?1 AND e.cancelled_at IS NULL)`;

function selectActiveEvent(db: Db, eventId: string) {
  return db
    .prepare(`SELECT ${EVENT_COLUMNS} FROM special_events e WHERE e.event_id = ?1 AND e.cancelled_at IS NULL`)
    .bind(eventId);
}

/** Inserts an event and its dates in one atomic batch; returns it as stored. */
export async function insertSpecialEvent(
  db: Db,
  eventId: string,
  input: CreateSpecialEventRequest,
  runBatch: BatchRunner = (statements) => db.batch(statements),
): Promise<SpecialEvent> {
  const results = await runBatch([
    db
      .prepare(
        `INSERT INTO special_events (event_id, name, location, description, price_cents)
         VALUES (?1, ?2, ?3, ?4, ?5)`,
      )
      .bind(eventId, input.name, input.location, input.eventDescription, toCents(input.price)),
    db.prepare(INSERT_DATES).bind(eventId, JSON.stringify(input.dates)),
    selectActiveEvent(db, eventId),
  ]);
  return toSpecialEvent(results[2]!.results[0] as EventRow);
}

export async function findSpecialEvent(db: Db, eventId: string): Promise<SpecialEvent | null> {
  const row = await selectActiveEvent(db, eventId).first<EventRow>();
  return row ? toSpecialEvent(row) : null;
}

/**
 * Applies the fields present in `changes` in one atomic batch; returns the
 * whole updated event, or null when no active event has that id.
 */
export async function writeSpecialEventChanges(
  db: Db,
  eventId: string,
  changes: UpdateSpecialEventRequest,
  runBatch: BatchRunner = (statements) => db.batch(statements),
): Promise<SpecialEvent | null> {
  const whenActive = "EXISTS (SELECT 1 FROM special_events WHERE event_id = ?1 AND cancelled_at IS NULL)";
  const statements = [
    db
      .prepare(
        `UPDATE special_events
            SET name = coalesce(?2, name), location = coalesce(?3, location),
                description = coalesce(?4, description), price_cents = coalesce(?5, price_cents),
                updated_at = ${SQL_NOW}
          WHERE event_id = ?1 AND cancelled_at IS NULL`,
      )
      .bind(
        eventId,
        changes.name ?? null,
        changes.location ?? null,
        changes.eventDescription ?? null,
        changes.price === undefined ? null : toCents(changes.price),
      ),
  ];
  // Only the dates dropped are deleted (a date with valid tickets cannot be:
  // see src/tickets/cancel.ts) and only new ones inserted.
  if (changes.dates) {
    const dates = JSON.stringify(changes.dates);
    statements.push(
      db
        .prepare(
          `DELETE FROM special_event_dates
            WHERE event_id = ?1 AND ${whenActive} AND event_date NOT IN (SELECT value FROM json_each(?2))`,
        )
        .bind(eventId, dates),
      db.prepare(`${INSERT_DATES} ON CONFLICT DO NOTHING`).bind(eventId, dates),
    );
  }
  if (changes.name !== undefined) {
    statements.push(
      db
        .prepare(`UPDATE special_event_dates SET event_name = ?2 WHERE event_id = ?1 AND ${whenActive}`)
        .bind(eventId, changes.name),
    );
  }
  statements.push(selectActiveEvent(db, eventId));
  const results = await runBatch(statements);
  const row = results.at(-1)!.results[0] as EventRow | undefined;
  return row ? toSpecialEvent(row) : null;
}

/**
 * Cancels an event: it disappears from the API, its row and dates stay.
 * Returns false when no active event has that id. Its tickets are the tickets
 * feature's: the events service runs this through `runBatch` of
 * src/tickets/cancel.ts, which cancels them in the same batch.
 */
export async function cancelSpecialEvent(
  db: Db,
  eventId: string,
  runBatch: BatchRunner = (statements) => db.batch(statements),
): Promise<boolean> {
  const results = await runBatch([
    db
      .prepare(
        `UPDATE special_events SET cancelled_at = ${SQL_NOW}, updated_at = ${SQL_NOW}
          WHERE event_id = ?1 AND cancelled_at IS NULL`,
      )
      .bind(eventId),
  ]);
  return results.at(-1)!.meta.changes > 0;
}

export type EventWindow = {
  startDate: IsoDate;
  endDate: IsoDate;
  limit: number;
  offset: number;
};

/**
 * Active events with a date in [?1, ?2], ordered by their first date in the
 * window, then name (byte order), then id; ?3 rows from offset ?4.
 *
 * The scan walks special_event_dates_by_date in that very order and keeps a
 * row only when it is its event's first date in the window (the NOT EXISTS
 * probe is a primary-key lookup), so it stops after offset + limit events
 * however many are stored. Exported for the query-plan test.
 */
export const LIST_IN_WINDOW_SQL = `SELECT ${EVENT_COLUMNS}
   FROM special_event_dates d
   JOIN special_events e ON e.event_id = d.event_id
  WHERE d.event_date BETWEEN ?1 AND ?2
    AND NOT EXISTS (SELECT 1 FROM special_event_dates earlier
                     WHERE earlier.event_id = d.event_id
                       AND earlier.event_date >= ?1 AND earlier.event_date < d.event_date)
    AND e.cancelled_at IS NULL
  ORDER BY d.event_date, d.event_name, d.event_id
  LIMIT ?3 OFFSET ?4`;

export async function listSpecialEventsInWindow(db: Db, window: EventWindow): Promise<SpecialEvent[]> {
  const { results } = await db
    .prepare(LIST_IN_WINDOW_SQL)
    .bind(window.startDate, window.endDate, window.limit, window.offset)
    .all<EventRow>();
  return results.map(toSpecialEvent);
}
