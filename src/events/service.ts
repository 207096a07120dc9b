// The event writes, each one D1 batch: the event's statements, the tickets'
// part (sold tickets follow a deletion or a change of dates) and the webhook
// outbox's (one delivery per subscription for every create or update).
import { Batch, type Db, runStep } from "../platform/batch";
import sql from "sql-template-tag";
import type { IsoDate } from "../platform/dates";
import { insertEventDeliveries } from "../webhooks/statements";
import { validationProblem } from "../http/errors";
import type { EventTickets } from "./followers";
import * as statements from "./statements";
import type { CategoryPrices, CreateSpecialEventRequest, SpecialEvent, UpdateSpecialEventRequest } from "./schemas";

/** An event as written, and the webhook deliveries recorded with it (for the Queue, once the response is on its way). */
export type PublishedEvent = { event: SpecialEvent; deliveryIds: string[] };

/** Reads the event back and records its deliveries, last in the change's batch (they see the event as changed). */
function addPublication(batch: Batch, eventId: string) {
  return {
    event: batch.add(statements.selectActiveEvent(batch.db, eventId)),
    deliveries: batch.add(insertEventDeliveries(batch.db, eventId, statements.eventPayload(eventId))),
  };
}

/**
 * Adds the replacement of an event's prices per category to a batch, behind
 * a guard: a category neither active nor already priced by the event is
 * refused (400 naming it), before anything is written.
 */
function addCategoryPrices(batch: Batch, eventId: string, prices: CategoryPrices | null): void {
  if (prices) {
    batch.guard(sql`${statements.eventIsActive(sql`${eventId}`)} AND ${statements.categoryPricesRefused(eventId, prices)}`, async () => {
      const refused = await runStep(statements.selectUnpriceableCategories(batch.db, eventId, prices));
      return refused.length === 0
        ? null
        : validationProblem(
            refused.map((categoryId) => ({
              path: `categoryPrices.${categoryId}`,
              message: `No ticket category '${categoryId}' is on sale (unknown or retired); see GET /ticket-categories.`,
            })),
          );
    });
  }
  for (const step of statements.replaceCategoryPrices(batch.db, eventId, prices)) batch.add(step);
}

/** Creates an event; no ticket can know it yet. */
export async function createEvent(db: Db, input: CreateSpecialEventRequest): Promise<PublishedEvent> {
  const eventId = crypto.randomUUID();
  const batch = new Batch(db);
  for (const step of statements.insertEvent(db, eventId, input)) batch.add(step);
  if (input.categoryPrices) addCategoryPrices(batch, eventId, input.categoryPrices);
  const published = addPublication(batch, eventId);
  await batch.run();
  return { event: published.event.value!, deliveryIds: published.deliveries.value };
}

/**
 * Applies `changes`; the tickets of the event see its new name at once. New
 * dates that drop a day with valid tickets are refused (409) unless
 * `cancelTickets`, which cancels those tickets in the same batch; a capacity
 * below the tickets taken for one of its dates from `today` on is refused
 * (409). Null when no active event has that id. `tickets`: the tickets' part.
 */
export async function updateEvent(
  db: Db,
  eventId: string,
  changes: UpdateSpecialEventRequest,
  options: { cancelTickets: boolean; today: IsoDate },
  tickets: EventTickets,
): Promise<PublishedEvent | null> {
  const batch = new Batch(db);
  const { cancelTickets, today } = options;
  const ticketsPart = tickets.follow(batch, { kind: "event-changed", today, eventId, dates: changes.dates, cancelTickets });
  for (const step of statements.updateEventFields(db, eventId, changes)) batch.add(step);
  if (changes.categoryPrices !== undefined) addCategoryPrices(batch, eventId, changes.categoryPrices);
  const capacity = changes.capacity;
  if (typeof capacity === "number") tickets.guardCapacity(batch, eventId, today, capacity);
  const published = addPublication(batch, eventId);
  await ticketsPart.settle(batch.run());
  const event = published.event.value;
  return event && { event, deliveryIds: published.deliveries.value };
}

/**
 * Cancels an event and, in the same batch, its valid tickets for `today` or
 * later. False when no active event has that id. `tickets`: the tickets' part.
 */
export async function cancelEvent(db: Db, eventId: string, today: IsoDate, tickets: EventTickets): Promise<boolean> {
  const batch = new Batch(db);
  const ticketsPart = tickets.follow(batch, { kind: "event-deleted", today, eventId });
  const cancelled = batch.add(statements.markEventCancelled(db, eventId));
  await ticketsPart.settle(batch.run());
  return cancelled.value;
}

/** An active (not deleted) event, or null. */
export function findEvent(db: Db, eventId: string): Promise<SpecialEvent | null> {
  return runStep(statements.selectActiveEvent(db, eventId));
}

export function listEvents(db: Db, window: statements.EventWindow): Promise<SpecialEvent[]> {
  return runStep(statements.listEventsInWindow(db, window));
}
