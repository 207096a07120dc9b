// The event writes: the tickets of an event follow its changes (through the
// tickets feature's one entry point), and every created or updated event is
// published to the webhook subscribers (through the webhooks feature's
// outbox), all in the change's one D1 batch.
import type { Db } from "../env";
import { ticketsFollow } from "../tickets/cancel";
import { eventDeliveriesBatch } from "../webhooks/outbox";
import * as queries from "./queries";
import type { CreateSpecialEventRequest, SpecialEvent, UpdateSpecialEventRequest } from "./schemas";

/** An event as written, and the webhook deliveries recorded with it (for the Queue, once the response is on its way). */
export type PublishedEvent = { event: SpecialEvent; deliveryIds: string[] };

function publication(eventId: string) {
  return { eventId, payloadSql: queries.EVENT_PAYLOAD_SQL };
}

/** Creates an event; no ticket can know it yet. */
export async function createEvent(db: Db, input: CreateSpecialEventRequest): Promise<PublishedEvent> {
  const eventId = crypto.randomUUID();
  const outbox = eventDeliveriesBatch(db, publication(eventId), (statements) => db.batch(statements));
  const event = await queries.insertSpecialEvent(db, eventId, input, outbox.runBatch);
  return { event, deliveryIds: outbox.deliveryIds() };
}

/**
 * Applies `changes`; the tickets of the event see its new name at once. New
 * dates that drop a day with valid tickets are refused (409) unless
 * `cancelTickets`, which cancels those tickets in the same batch. Null when
 * no active event has that id.
 */
export async function updateEvent(
  db: Db,
  eventId: string,
  changes: UpdateSpecialEventRequest,
  cancelTickets: boolean,
): Promise<PublishedEvent | null> {
  const tickets = ticketsFollow(db, { kind: "event-changed", eventId, dates: changes.dates, cancelTickets });
  const outbox = eventDeliveriesBatch(db, publication(eventId), tickets);
  const event = await queries.writeSpecialEventChanges(db, eventId, changes, outbox.runBatch);
  return event && { event, deliveryIds: outbox.deliveryIds() };
}

/** Cancels an event and, in the same batch, the tickets sold for it. False when no active event has that id. */
export function cancelEvent(db: Db, eventId: string): Promise<boolean> {
  return queries.cancelSpecialEvent(db, eventId, ticketsFollow(db, { kind: "event-deleted", eventId }));
}
