// The event writes whose effects reach tickets: run through the tickets feature's one entry point.
import type { Db } from "../env";
import { eventChangeBatch } from "../tickets/event-changes";
import * as queries from "./queries";
import type { SpecialEvent, UpdateSpecialEventRequest } from "./schemas";

/** Applies `changes`; the tickets of the event see its new name at once. */
export function updateEvent(db: Db, eventId: string, changes: UpdateSpecialEventRequest): Promise<SpecialEvent | null> {
  return queries.writeSpecialEventChanges(db, eventId, changes, eventChangeBatch(db, { eventId, cancelsTickets: false }));
}

/** Cancels an event and, in the same batch, the tickets sold for it. False when no active event has that id. */
export function cancelEvent(db: Db, eventId: string): Promise<boolean> {
  return queries.cancelSpecialEvent(db, eventId, eventChangeBatch(db, { eventId, cancelsTickets: true }));
}
