import type { BatchRunner, Db } from "../env";
import { forgetTicketLookups } from "./lookup-cache";

const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/** A change to a special event that its tickets must follow. */
export type EventChange = {
  eventId: string;
  /** The event is cancelled (deleted): so are the tickets sold for it. */
  cancelsTickets: boolean;
};

/**
 * The events feature's one way into tickets: a `BatchRunner` for an event's
 * change. The event's statements run in one batch with the tickets' own part
 * (their cancellation, written first while the event still reads as active),
 * and afterwards this isolate looks tickets up afresh, since a ticket image
 * prints the event's name and its cancelled state.
 */
export function eventChangeBatch(db: Db, change: EventChange): BatchRunner {
  return async (eventStatements) => {
    const ticketStatements = change.cancelsTickets
      ? [
          db
            .prepare(
              `UPDATE tickets SET cancelled_at = ${NOW}
                WHERE event_id = ?1 AND cancelled_at IS NULL
                  AND EXISTS (SELECT 1 FROM special_events WHERE event_id = ?1 AND cancelled_at IS NULL)`,
            )
            .bind(change.eventId),
        ]
      : [];
    try {
      const results = await db.batch([...ticketStatements, ...eventStatements]);
      return results.slice(ticketStatements.length);
    } finally {
      forgetTicketLookups();
    }
  };
}
