// What an event change asks of the tickets sold for the event. The tickets
// feature reads events (a ticket's event name, whether its event is active),
// so events never import it: tickets/follow.ts implements `EventTickets`
// and app.ts hands it to the events router.
import type { Batch, BatchPart } from "../platform/batch";
import type { IsoDate } from "../platform/dates";

/**
 * An event change that sold tickets follow. Only tickets for `today` (the
 * museum's) or later follow it: admitted and past tickets keep their state.
 */
export type EventCause = { today: IsoDate } & (
  /** The event is deleted: its valid tickets are cancelled with it. */
  | { kind: "event-deleted"; eventId: string }
  /** The event changes; `dates`, when given, replace its dates. */
  | { kind: "event-changed"; eventId: string; dates?: IsoDate[]; cancelTickets: boolean }
);

/** The tickets' part in an event change's batch. */
export type EventTickets = {
  /**
   * Adds the tickets' part of `cause`, before the event's own statements
   * (the event still reads as active, its dates are still there).
   */
  follow(batch: Batch, cause: EventCause): BatchPart;
  /**
   * Adds a guard, after the event's own statements: the batch is undone
   * when `capacity` is below the places taken for the event on a date from
   * `from` on (409 capacity-below-sold).
   */
  guardCapacity(batch: Batch, eventId: string, from: IsoDate, capacity: number): void;
};
