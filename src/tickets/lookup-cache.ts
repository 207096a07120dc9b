import { TtlCache } from "../platform/ttl-cache";
import type { TicketForImage } from "./queries";

/**
 * This isolate's memory of what a ticket's image shows (findTicketForImage),
 * for TICKET_LOOKUP_TTL_MS: a kiosk that fetches or revalidates the same
 * ticket image again shortly after gets it without a D1 round trip (see
 * docs/performance.md). The image itself and its ETag still come from these
 * facts, so nothing else changes.
 *
 * Staleness: tickets cancelled through this isolate (tickets/cancel.ts) and
 * a renamed event forget everything at once (`forgetTicketLookups`); made
 * through another isolate, a change shows here within TICKET_LOOKUP_TTL_MS.
 * The card's CANCELLED mark is informative only: the signed QR token does
 * not change, and a gate checks the ticket itself.
 */
const TICKET_LOOKUP_TTL_MS = 10_000;
const lookups = new TtlCache<TicketForImage>({ maxEntries: 1_000, ttlMs: TICKET_LOOKUP_TTL_MS });

export function recallTicket(ticketId: string): TicketForImage | undefined {
  return lookups.get(ticketId);
}

export function rememberTicket(ticket: TicketForImage): void {
  lookups.set(ticket.ticketId, ticket);
}

/** Forgets every remembered ticket (tickets were cancelled, or an event renamed). */
export function forgetTicketLookups(): void {
  lookups.clear();
}
