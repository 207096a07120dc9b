import type { Db } from "../env";
import type { IsoDate } from "../platform/dates";
import { museumClosingTimeSql, museumOpenOnSql } from "../hours/open-day";
import {
  CLAIM_HELD_SQL,
  claimParameters,
  completeIdempotencyKey,
  selectClaimHeld,
  type IdempotencyClaimHeld,
} from "./idempotency-queries";
import type { TicketType } from "./image/token";
import type { Purchase } from "./schemas";

export type NewTicket = Purchase & {
  ticketId: string;
  confirmationCode: string;
  /** General tickets; an event ticket is priced from its event at the moment of sale. */
  generalPriceCents: number;
  soldBy: string;
  /** The museum's date and time (`HH:mm`) now: today's general tickets are sold until closing time. */
  museumNow: { today: IsoDate; time: string };
};

// Written only when the museum is open that day and, for today (?11), before
// its closing time (?12 is the museum's time now), checked in the same
// statement: one D1 round trip for the sale, and a holiday recorded meanwhile
// cannot slip between a check and the write.
const INSERT_GENERAL = `INSERT INTO tickets
  (ticket_id, ticket_type, ticket_date, event_id, confirmation_code, buyer_email, buyer_phone, price_cents, sold_by)
  SELECT ?1, 'general', ?2, NULL, ?3, ?4, ?5, ?6, ?7
   WHERE ${museumOpenOnSql("?2")}
     AND (?2 > ?11 OR ?12 < ${museumClosingTimeSql("?2")})`;

// Written only while the event is active and has that date, with the event's
// price read in the same statement: a concurrent cancel or price change can
// never slip between the checks and the sale.
const INSERT_EVENT = `INSERT INTO tickets
  (ticket_id, ticket_type, ticket_date, event_id, confirmation_code, buyer_email, buyer_phone, price_cents, sold_by)
  SELECT ?1, 'event', d.event_date, e.event_id, ?3, ?4, ?5, e.price_cents, ?7
    FROM special_events e
    JOIN special_event_dates d ON d.event_id = e.event_id AND d.event_date = ?2
   WHERE e.event_id = ?6 AND e.cancelled_at IS NULL`;

/**
 * What came of an insert: written; refused because the sale's condition does
 * not hold at the moment of writing (for a general ticket the museum is
 * closed that day; for an event ticket the event was cancelled or lost that
 * date since it was read); or refused because the purchase's Idempotency-Key
 * claim was taken over by another request meanwhile.
 */
export type InsertOutcome = "inserted" | "refused" | "claim-lost";

/**
 * Writes a ticket and, when the purchase carries an Idempotency-Key, the
 * key's stored response, in one atomic batch (one round trip). With a claim,
 * the insert itself requires that the claim still holds the key, and the
 * batch reads whether it does, to tell "claim-lost" from "refused".
 */
export async function insertTicket(
  db: Db,
  ticket: NewTicket,
  idempotency?: { claim: IdempotencyClaimHeld; responseBody: string },
): Promise<InsertOutcome> {
  const general = ticket.ticketType === "general";
  const sql = general ? INSERT_GENERAL : INSERT_EVENT;
  // ?8–?10 hold the claim; a general ticket without one leaves them NULL, so
  // that its cut-off parameters keep their numbers ?11 and ?12.
  const claimValues = idempotency ? claimParameters(idempotency.claim) : general ? [null, null, null] : [];
  // ?6 is the general price, or the event whose price applies.
  const insert = db
    .prepare(idempotency ? `${sql} AND ${CLAIM_HELD_SQL}` : sql)
    .bind(
      ticket.ticketId,
      ticket.ticketDate,
      ticket.confirmationCode,
      ticket.email,
      ticket.phone ?? null,
      ticket.ticketType === "event" ? ticket.eventId : ticket.generalPriceCents,
      ticket.soldBy,
      ...claimValues,
      ...(general ? [ticket.museumNow.today, ticket.museumNow.time] : []),
    );
  if (!idempotency) {
    const [inserted] = await db.batch([insert]);
    return inserted!.meta.changes === 1 ? "inserted" : "refused";
  }
  const [inserted, , held] = await db.batch([
    insert,
    completeIdempotencyKey(db, idempotency.claim, ticket.ticketId, idempotency.responseBody),
    selectClaimHeld(db, idempotency.claim),
  ]);
  if (inserted!.meta.changes === 1) return "inserted";
  return (held!.results[0] as { held: number }).held === 1 ? "refused" : "claim-lost";
}

/** What the ticket image shows; never the buyer's contact details. */
export type TicketForImage = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: IsoDate;
  confirmationCode: string;
  eventName?: string;
  cancelled: boolean;
};

export async function findTicketForImage(db: Db, ticketId: string): Promise<TicketForImage | null> {
  const row = await db
    .prepare(
      `SELECT t.ticket_id, t.ticket_type, t.ticket_date, t.confirmation_code, t.cancelled_at, e.name AS event_name
         FROM tickets t LEFT JOIN special_events e ON e.event_id = t.event_id
        WHERE t.ticket_id = ?1`,
    )
    .bind(ticketId)
    .first<{
      ticket_id: string;
      ticket_type: TicketType;
      ticket_date: string;
      confirmation_code: string;
      cancelled_at: string | null;
      event_name: string | null;
    }>();
  if (!row) return null;
  return {
    ticketId: row.ticket_id,
    ticketType: row.ticket_type,
    ticketDate: row.ticket_date,
    confirmationCode: row.confirmation_code,
    ...(row.event_name === null ? {} : { eventName: row.event_name }),
    cancelled: row.cancelled_at !== null,
  };
}
