import type { TicketForImage } from "./queries";

/**
 * This isolate's memory of what a ticket's image shows (findTicketForImage),
 * for TICKET_LOOKUP_TTL_MS: a kiosk that fetches or revalidates the same
 * ticket image again shortly after gets it without a D1 round trip (see
 * docs/performance.md). The image itself and its ETag still come from these
 * facts, so nothing else changes.
 *
 * Staleness: a change to the event (rename, delete) made through this
 * isolate forgets everything at once (`forgetTicketLookups`, called by the
 * events handlers); made through another isolate, it shows here within
 * TICKET_LOOKUP_TTL_MS. The card's CANCELLED mark is informative only: the
 * signed QR token does not change, and a gate checks the ticket itself.
 */
export const TICKET_LOOKUP_TTL_MS = 10_000;
const MAX_ENTRIES = 1_000;

type Entry = { ticket: TicketForImage; expires: number };
const entries = new Map<string, Entry>();

export function recallTicket(ticketId: string, now = Date.now()): TicketForImage | undefined {
  const entry = entries.get(ticketId);
  if (!entry) return undefined;
  // Expired, or stored under a clock that has since gone back: look it up again.
  if (entry.expires <= now || entry.expires - TICKET_LOOKUP_TTL_MS > now) {
    entries.delete(ticketId);
    return undefined;
  }
  return entry.ticket;
}

export function rememberTicket(ticket: TicketForImage, now = Date.now()): void {
  entries.delete(ticket.ticketId);
  entries.set(ticket.ticketId, { ticket, expires: now + TICKET_LOOKUP_TTL_MS });
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
}

/** Forgets every remembered ticket (an event was changed or deleted). */
export function forgetTicketLookups(): void {
  entries.clear();
}
