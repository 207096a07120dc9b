// What a ticket's state is: the tickets feature's read model of one ticket.
import type { Principal } from "../env";
import { type Db, runStep } from "../platform/batch";
import { amountOf } from "../platform/money";
import { sellerScope } from "./access";
import type { TicketStatus } from "./schemas";
import { selectTicket, selectTicketByConfirmationCode, type TicketRow } from "./statements/rows";

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

/**
 * A ticket as it stands now: a hold that ran out is cancelled (`hold-expired`,
 * at its hold's end, refund 0) from that moment, whether recorded or not.
 */
function settled(row: TicketRow): TicketRow {
  if (row.hold_expired !== 1) return row;
  return { ...row, cancelled_at: row.hold_until, cancel_source: "hold-expired", cancel_reason: null, refund_cents: 0 };
}

/** True while a ticket is held (by a live hold: a hold that ran out is cancelled). */
export function isHeld(row: TicketRow): boolean {
  return row.hold_until !== null && row.cancelled_at === null && row.hold_expired !== 1;
}

/**
 * Whether a ticket was ever sold, which decides whether it has a code:
 * `sold` (sold at once or confirmed; it has a code, cancelled since or not),
 * `held` (a live hold: no code yet), `hold-ended` (its hold was released or
 * ran out, however: never sold, so never a code, until a late confirmation
 * sells it).
 */
export type SaleState = "sold" | "held" | "hold-ended";

export function saleStateOf(row: TicketRow): SaleState {
  if (row.hold_until === null) return "sold";
  return isHeld(row) ? "held" : "hold-ended";
}

/** A ticket's status (held, cancelled, admitted or valid), with its cancellation's trail. */
export function ticketStatusOf(ticket: TicketRow, currency: string): TicketStatus {
  const row = settled(ticket);
  const held = isHeld(ticket);
  return {
    ...ticketFacts(row),
    ...(row.entry_time === null ? {} : { entryTime: row.entry_time }),
    ...(row.order_id === null ? {} : { orderId: row.order_id }),
    confirmationCode: row.confirmation_code,
    category: row.category,
    price: amountOf(row.price_cents),
    currency,
    status: row.cancelled_at !== null ? "cancelled" : row.admitted_at !== null ? "admitted" : held ? "held" : "valid",
    ...(held ? { expiresAt: row.hold_until! } : {}),
    ...(row.admitted_at === null ? {} : { admittedAt: row.admitted_at }),
    ...(row.cancelled_at === null ? {} : { cancelledAt: row.cancelled_at }),
    ...(row.cancelled_at === null || row.cancel_source === null
      ? {}
      : {
          cancellation: {
            source: row.cancel_source,
            ...(row.cancelled_by === null ? {} : { by: row.cancelled_by }),
            ...(row.cancel_reason === null ? {} : { reason: row.cancel_reason }),
            refund: { amount: amountOf(row.refund_cents ?? row.price_cents) },
          },
        }),
  };
}

/**
 * The status of the ticket whose confirmation code is `code` (lower case),
 * or null for a code that is unknown or whose ticket is not `principal`'s to
 * see (tickets/access.ts). One round trip.
 */
export async function ticketStatusByConfirmationCode(db: Db, code: string, principal: Principal, currency: string): Promise<TicketStatus | null> {
  const row = await runStep(selectTicketByConfirmationCode(db, code, sellerScope(principal)));
  return row && ticketStatusOf(row, currency);
}

/**
 * A ticket's status, or null for a ticket that is unknown or not
 * `principal`'s to see (tickets/access.ts). One round trip.
 */
export async function ticketStatus(db: Db, ticketId: string, principal: Principal, currency: string): Promise<TicketStatus | null> {
  const row = await runStep(selectTicket(db, ticketId, sellerScope(principal)));
  return row && ticketStatusOf(row, currency);
}
