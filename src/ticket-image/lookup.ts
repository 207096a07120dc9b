// What a ticket's image shows, looked up for the image route: from this
// isolate's memory when the caller may be answered from it, else from D1.
import type { Principal } from "../env";
import { type Db, runStep } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { TtlCache } from "../platform/ttl-cache";
import { sellerScope } from "../tickets/access";
import type { TicketType } from "../tickets/schemas";
import { selectTicket, type TicketRow } from "../tickets/statements/rows";
import { type SaleState, saleStateOf } from "../tickets/status";

/** What the image of a sold ticket shows; never the buyer's contact details. */
export type TicketForImage = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: IsoDate;
  category: string;
  confirmationCode: string;
  eventId?: string;
  eventName?: string;
  entryTime?: string;
  /** The name of the ticket's category, as the category is named now. */
  categoryName: string;
  /** Cancelled after its sale: the card says so; its code stays genuine, and gates learn of it from the revocation feed. */
  cancelled: boolean;
};

/**
 * A ticket as the image route finds it: sold, with what its image shows; or
 * never sold (held, or its hold ended), so no image and no code at all.
 */
export type TicketImageLookup = { state: "sold"; ticket: TicketForImage } | { state: Exclude<SaleState, "sold"> };

/**
 * This isolate's memory of what a ticket's image shows, for
 * TICKET_LOOKUP_TTL_MS: a kiosk that fetches or revalidates the same ticket
 * image again shortly after gets it without a D1 round trip (see
 * docs/performance.md). The image itself and its ETag still come from these
 * facts, so nothing else changes.
 *
 * Staleness: tickets cancelled through this isolate (tickets/follow.ts) and
 * a renamed event forget everything at once (`forgetTicketLookups`); made
 * through another isolate, a change shows here within TICKET_LOOKUP_TTL_MS.
 * The card's CANCELLED mark is informative only: the signed QR code does
 * not change, and a gate checks the ticket itself.
 */
const TICKET_LOOKUP_TTL_MS = 10_000;
/** A remembered ticket, with the account that sold it: only who may see it is answered from memory. */
type RememberedTicket = { ticket: TicketForImage; soldBy: string };
const lookups = new TtlCache<RememberedTicket>({ maxEntries: 1_000, ttlMs: TICKET_LOOKUP_TTL_MS });

/**
 * The ticket `ticketId` as the image route finds it, or null for a ticket
 * that is unknown or not `principal`'s to see (tickets/access.ts).
 * `mayRecall`: the caller may be answered from this isolate's memory (a
 * client that sends a session bookmark reads its own writes, so it may not).
 * A remembered ticket the caller may not see is not an answer: the caller
 * reads D1 as for an unknown id, and gets the same 404 after the same work.
 * Only sold tickets are remembered: a sale is never undone, while a held
 * ticket, or one whose hold ended, may be confirmed (late) in another isolate.
 */
export async function lookUpTicketForImage(
  db: Db,
  ticketId: string,
  principal: Principal,
  mayRecall: boolean,
): Promise<TicketImageLookup | null> {
  const seller = sellerScope(principal);
  const remembered = mayRecall ? lookups.get(ticketId) : undefined;
  if (remembered && (seller === null || remembered.soldBy === seller)) return { state: "sold", ticket: remembered.ticket };
  const row = await runStep(selectTicket(db, ticketId, seller));
  if (!row) return null;
  const state = saleStateOf(row);
  if (state !== "sold") return { state };
  const ticket = ticketForImageOf(row);
  rememberTicket(ticket, row.sold_by);
  return { state, ticket };
}

function ticketForImageOf(row: TicketRow): TicketForImage {
  return {
    ticketId: row.ticket_id,
    ticketType: row.ticket_type,
    ticketDate: row.ticket_date,
    category: row.category,
    confirmationCode: row.confirmation_code,
    ...(row.event_id === null ? {} : { eventId: row.event_id }),
    ...(row.event_name === null ? {} : { eventName: row.event_name }),
    ...(row.entry_time === null ? {} : { entryTime: row.entry_time }),
    categoryName: row.category_name,
    cancelled: row.cancelled_at !== null,
  };
}

/** Remembers a sold ticket, sold by the account `soldBy`, so the kiosk's next fetch of its image reads no D1. */
export function rememberTicket(ticket: TicketForImage, soldBy: string): void {
  lookups.set(ticket.ticketId, { ticket, soldBy });
}

/** Forgets every remembered ticket (tickets were cancelled, or an event renamed). */
export function forgetTicketLookups(): void {
  lookups.clear();
}
