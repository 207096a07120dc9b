// What a ticket's state is: the tickets feature's read model of one ticket.
import type { Principal } from "../env";
import { type Db, runStep } from "../platform/batch";
import { amountOf } from "../platform/money";
import { sellerScope } from "./access";
import type { TicketStatus } from "./schemas";
import { selectTicket, type TicketRow } from "./statements";

/** What names a ticket in the API's answers about it (its status, its admission). */
export function ticketFacts(row: TicketRow) {
  return {
    ticketId: row.ticket_id,
    ticketType: row.ticket_type,
    ticketDate: row.ticket_date,
    ...(row.event_id === null ? {} : { eventId: row.event_id }),
    ...(row.event_name === null ? {} : { eventName: row.event_name }),
  };
}

/** A ticket's status (cancelled, admitted or valid), with its cancellation's trail. */
export function ticketStatusOf(row: TicketRow, currency: string): TicketStatus {
  return {
    ...ticketFacts(row),
    ...(row.entry_time === null ? {} : { entryTime: row.entry_time }),
    ...(row.order_id === null ? {} : { orderId: row.order_id }),
    category: row.category,
    price: amountOf(row.price_cents),
    currency,
    status: row.cancelled_at !== null ? "cancelled" : row.admitted_at !== null ? "admitted" : "valid",
    ...(row.admitted_at === null ? {} : { admittedAt: row.admitted_at }),
    ...(row.cancelled_at === null ? {} : { cancelledAt: row.cancelled_at }),
    ...(row.cancelled_at === null || row.cancel_source === null
      ? {}
      : {
          cancellation: {
            source: row.cancel_source,
            ...(row.cancel_reason === null ? {} : { reason: row.cancel_reason }),
            refund: { amount: amountOf(row.refund_cents ?? row.price_cents) },
          },
        }),
  };
}

/**
 * A ticket's status, or null for a ticket that is unknown or not
 * `principal`'s to see (tickets/access.ts). One round trip.
 */
export async function ticketStatus(db: Db, ticketId: string, principal: Principal, currency: string): Promise<TicketStatus | null> {
  const row = await runStep(selectTicket(db, ticketId, sellerScope(principal)));
  return row && ticketStatusOf(row, currency);
}
