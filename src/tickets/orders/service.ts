// An order's status, and its cancellation at the box office: each one batch
// over the order and its tickets.
import type { Principal } from "../../env";
import { keyStillInProgress, runKeyed } from "../../idempotency/keys";
import type { IdempotencyClaimHeld } from "../../idempotency/statements";
import { PROBLEM_TYPES, ProblemError } from "../../http/problem";
import { Batch, type Db } from "../../platform/batch";
import { totalOf } from "../../platform/money";
import { sellerScope } from "../access";
import { addBoxOfficeCancellation, type CancellationContext, type StoredCancellation } from "../cancellation";
import {
  type CancelledTicket,
  selectCancelledBy,
  selectOrderTickets,
  type TicketRow,
} from "../statements";
import { forgetTicketLookups } from "../lookup";
import { ticketStatusOf } from "../status";
import type { OrderCancellation, OrderStatus } from "./schemas";
import { type OrderRow, selectOrder } from "./statements";

export function orderNotFound(orderId: string): ProblemError {
  return new ProblemError(404, { detail: `No order with id ${orderId}.` });
}

function orderStatusOf(order: OrderRow, tickets: TicketRow[], currency: string): OrderStatus {
  return {
    orderId: order.order_id,
    createdAt: order.created_at,
    totalPrice: totalOf(tickets.map((ticket) => ticket.price_cents)),
    currency,
    tickets: tickets.map((ticket) => ticketStatusOf(ticket, currency)),
  };
}

/** Adds the reads of an order and its tickets, sold by `seller` (null: by anyone), to a batch. */
function addOrderReads(batch: Batch, orderId: string, seller: string | null) {
  return {
    order: batch.add(selectOrder(batch.db, orderId, seller)),
    tickets: batch.add(selectOrderTickets(batch.db, orderId, seller)),
  };
}

/**
 * An order's status, or null for an order that is unknown or not
 * `principal`'s to see (tickets/access.ts). One round trip.
 */
export async function orderStatus(db: Db, orderId: string, principal: Principal, currency: string): Promise<OrderStatus | null> {
  const batch = new Batch(db);
  const { order, tickets } = addOrderReads(batch, orderId, sellerScope(principal));
  await batch.run();
  return order.value && orderStatusOf(order.value, tickets.value, currency);
}

function cancellationOf(order: OrderRow, tickets: TicketRow[], cancelled: CancelledTicket[], currency: string): OrderCancellation {
  return {
    ...orderStatusOf(order, tickets, currency),
    refund: { amount: totalOf(cancelled.map((ticket) => ticket.refund_cents)) },
  };
}

async function cancelOnce(
  db: Db,
  orderId: string,
  context: CancellationContext,
  claim: IdempotencyClaimHeld | undefined,
): Promise<OrderCancellation> {
  const batch = new Batch(db);
  const { cancelled, held } = addBoxOfficeCancellation(batch, { orderId }, context, claim);
  const { order, tickets } = addOrderReads(batch, orderId, sellerScope(context.principal));
  await batch.run();
  if (!order.value) throw orderNotFound(orderId);
  if (held && !held.value) throw keyStillInProgress();
  if (cancelled.value.length === 0) {
    throw new ProblemError(409, {
      type: PROBLEM_TYPES.nothingToCancel,
      title: "Nothing to cancel",
      detail: "No ticket of this order can still be cancelled (each is cancelled, admitted or past); nothing was changed.",
      extensions: { orderId },
    });
  }
  // This isolate's images of the tickets show them cancelled at once.
  forgetTicketLookups();
  return cancellationOf(order.value, tickets.value, cancelled.value, context.currency);
}

/**
 * Cancels every ticket of an order that can still be cancelled, in one batch
 * (admin, box-office: any order; sales: its own), under the request's Idempotency-Key
 * (if any). The refund is the sum of the prices of the tickets cancelled now.
 */
export async function cancelOrderAtBoxOffice(
  db: Db,
  orderId: string,
  context: CancellationContext,
): Promise<{ cancellation: OrderCancellation; replayed: boolean }> {
  const { result, replayed } = await runKeyed<StoredCancellation, OrderCancellation>({
    db,
    scope: { accountName: context.principal.name, operation: "cancelOrder", key: context.idempotencyKey },
    request: { orderId, reason: context.reason ?? null },
    run: (claim) => cancelOnce(db, orderId, context, claim),
    replay: async ({ cancellationId }) => {
      const batch = new Batch(db);
      const { order, tickets } = addOrderReads(batch, orderId, sellerScope(context.principal));
      const cancelled = batch.add(selectCancelledBy(db, cancellationId));
      await batch.run();
      // An order is never deleted: the key's order is always there.
      if (!order.value) throw new Error(`Order ${orderId} of a stored key is missing`);
      return cancellationOf(order.value, tickets.value, cancelled.value, context.currency);
    },
    now: context.now,
  });
  return { cancellation: result, replayed };
}
