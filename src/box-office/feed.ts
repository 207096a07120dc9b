// The cancellations feed (GET /cancellations): every ticket cancellation,
// whatever caused it, in the order written, so a shop learns whom to refund.
import type { Principal } from "../env";
import type { Db } from "../platform/batch";
import { amountOf } from "../platform/money";
import { sellerScope } from "../tickets/access";
import { revocationPage } from "../tickets/feed";
import type { CancellationFeed } from "./schemas";

/**
 * The cancellations after `since` (a log position; none: from the start)
 * that `principal` may see (sales: the tickets it sold). One round trip.
 */
export async function cancellationsAfter(db: Db, since: number | undefined, principal: Principal, currency: string): Promise<CancellationFeed> {
  const { entries, next } = await revocationPage(db, { reason: "cancelled", soldBy: sellerScope(principal) }, since);
  return {
    cancellations: entries.map((entry) => ({
      ticketId: entry.ticket_id,
      ...(entry.order_id === null ? {} : { orderId: entry.order_id }),
      ticketDate: entry.ticket_date,
      cancelledAt: entry.revoked_at,
      // A `cancelled` entry is written only with the ticket's cancellation.
      source: entry.cancel_source!,
      ...(entry.cancelled_by === null ? {} : { by: entry.cancelled_by }),
      refund: { amount: amountOf(entry.refund_cents ?? entry.price_cents) },
      currency,
    })),
    next,
  };
}
