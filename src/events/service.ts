// The event writes whose effects reach tickets: run through the tickets feature's one entry point.
import type { Db } from "../env";
import { ticketsFollow } from "../tickets/cancel";
import * as queries from "./queries";
import type { SpecialEvent, UpdateSpecialEventRequest } from "./schemas";

/**
 * Applies `changes`; the tickets of the event see its new name at once. New
 * dates that drop a day with valid tickets are refused (409) unless
 * `cancelTickets`, which cancels those tickets in the same batch.
 */
export function updateEvent(
  db: Db,
  eventId: string,
  changes: UpdateSpecialEventRequest,
  cancelTickets: boolean,
): Promise<SpecialEvent | null> {
  const runBatch = ticketsFollow(db, { kind: "event-changed", eventId, dates: changes.dates, cancelTickets });
  return queries.writeSpecialEventChanges(db, eventId, changes, runBatch);
}

/** Cancels an event and, in the same batch, the tickets sold for it. False when no active event has that id. */
export function cancelEvent(db: Db, eventId: string): Promise<boolean> {
  return queries.cancelSpecialEvent(db, eventId, ticketsFollow(db, { kind: "event-deleted", eventId }));
}
