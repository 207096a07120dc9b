// The event writes: the tickets of an event follow its changes (through the
// tickets feature's one entry point), and every created or updated event is
// published to the webhook subscribers (through the webhooks feature's
// outbox), all in the change's one D1 batch.
import type { Db } from "../env";
import { eventChangeBatch } from "../tickets/event-changes";
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

/** Applies `changes`; the tickets of the event see its new name at once. Null when no active event has that id. */
export async function updateEvent(db: Db, eventId: string, changes: UpdateSpecialEventRequest): Promise<PublishedEvent | null> {
  const outbox = eventDeliveriesBatch(db, publication(eventId), eventChangeBatch(db, { eventId, cancelsTickets: false }));
  const event = await queries.writeSpecialEventChanges(db, eventId, changes, outbox.runBatch);
  return event && { event, deliveryIds: outbox.deliveryIds() };
}

/** Cancels an event and, in the same batch, the tickets sold for it. False when no active event has that id. */
export function cancelEvent(db: Db, eventId: string): Promise<boolean> {
  return queries.cancelSpecialEvent(db, eventId, eventChangeBatch(db, { eventId, cancelsTickets: true }));
}
