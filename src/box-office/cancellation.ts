// Cancellation at the box office (docs/orders.md): one batch cancels what can
// still be cancelled and reads the ticket as it then stands, which decides
// the answer. A whole order's tickets are cancelled by the same statement.
import sql from "sql-template-tag";
import type { Principal } from "../env";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { addKeyCompletion, keyStillInProgress, runKeyed } from "../idempotency/keys";
import { type IdempotencyClaimHeld, claimHeld } from "../idempotency/statements";
import { Batch, type Db, type Handle, runStep } from "../platform/batch";
import type { MuseumNow } from "../platform/dates";
import { amountOf, totalOf } from "../platform/money";
import { stillOnSale } from "../sales/conditions";
import { addOrderReads, orderNotFound, orderStatusOf } from "../sales/orders";
import { orderRecordedAs, type OrderRow, settleHeldOrder } from "../sales/statements";
import { forgetTicketLookups } from "../ticket-image";
import { sellerScope } from "../tickets/access";
import { alreadyAdmitted, ticketCancelled, ticketNotFound } from "../tickets/problems";
import { type BoxOfficeCancellation, type CancelledTicket, cancelAtBoxOffice, cancellationMade, cancelledBy, lastCompanion, selectCancelledBy, selectLastCompanion } from "../tickets/statements/cancellation";
import type { OrderTicketRow } from "../tickets/statements/holds";
import { type TicketRow, selectTicket } from "../tickets/statements/rows";
import { ticketStatusOf } from "../tickets/status";
import type { OrderCancellation, TicketCancellation } from "./schemas";

/** Who cancels, when, and why. */
export type CancellationContext = {
  principal: Principal;
  museumNow: MuseumNow;
  reason?: string;
  currency: string;
  /** Makes the cancellation safe to retry (scoped to the principal). */
  idempotencyKey?: string;
  now?: Date;
  /** Steps of the caller (reads for its answer) run in the cancellation's batch after it. */
  also?: (batch: Batch) => void;
};

/** What a cancellation stores for its Idempotency-Key: which request cancelled. */
type StoredCancellation = { cancellationId: string };

/**
 * Adds a box-office cancellation of `target` (a ticket, or an order's
 * tickets) to a batch, under a new id: the cancelling statement and, with an
 * Idempotency-Key's claim, what the key stores to answer again (which
 * cancellation it was). `cancelled` reads the tickets it took; `held`,
 * with a claim, whether the claim still held the key.
 */
function addBoxOfficeCancellation(
  batch: Batch,
  target: BoxOfficeCancellation["target"],
  context: CancellationContext,
  claim: IdempotencyClaimHeld | undefined,
): { cancelled: Handle<CancelledTicket[]>; held: Handle<boolean> | undefined } {
  const cancellationId = crypto.randomUUID();
  const { db } = batch;
  const cancelled = batch.add(
    cancelAtBoxOffice(
      batch.db,
      {
        target,
        cancellationId,
        cancelledAt: (context.now ?? new Date()).toISOString(),
        reason: context.reason ?? null,
        by: context.principal.name,
        soldBy: sellerScope(context.principal),
        cancellable: (ticket) => stillOnSale(ticket, context.museumNow),
      },
      claim && claimHeld(claim),
    ),
  );
  // A ticket alone never leaves an accompanied one of its order without a
  // companion; the whole order (the child's ticket with it) always can go.
  if ("ticketId" in target) {
    const { ticketId } = target;
    batch.guard(sql`${cancelledBy(ticketId, cancellationId)} AND ${lastCompanion(ticketId)}`, async () =>
      (await runStep(selectLastCompanion(db, ticketId))) ? accompanimentRequired(ticketId) : null,
    );
  }
  const held =
    claim &&
    addKeyCompletion(batch, claim, {
      resourceId: "ticketId" in target ? target.ticketId : target.orderId,
      body: JSON.stringify({ cancellationId } satisfies StoredCancellation),
      written: cancellationMade(cancellationId),
    });
  return { cancelled, held };
}

/** The 409 of a cancellation that would leave an accompanied ticket of the order without a companion. */
function accompanimentRequired(ticketId: string): ProblemError {
  return new ProblemError(409, {
    type: PROBLEM_TYPES.accompanimentRequired,
    title: "Accompaniment required",
    detail:
      "This ticket is the only companion of an accompanied ticket of its order (same date, event or general entry, and entry time); cancel that ticket first, or the whole order. Nothing was changed.",
    extensions: { ticketId },
  });
}

/** The 409 of a ticket that can no longer be cancelled, as it now stands. */
function notCancellable(row: TicketRow, currency: string): ProblemError {
  const status = ticketStatusOf(row, currency);
  if (status.status === "held") {
    return new ProblemError(409, {
      type: PROBLEM_TYPES.ticketHeld,
      title: "Ticket held",
      detail: "This ticket is held for an order being paid for; release the order (POST /orders/{orderId}/cancellation) instead.",
      extensions: { ticketId: row.ticket_id, orderId: row.order_id },
    });
  }
  if (status.cancelledAt !== undefined) return ticketCancelled(row.ticket_id, status.cancelledAt, status.cancellation);
  if (row.admitted_at !== null) return alreadyAdmitted(row.ticket_id, row.admitted_at);
  return new ProblemError(409, {
    type: PROBLEM_TYPES.ticketExpired,
    title: "Ticket expired",
    detail: `This ticket for ${row.ticket_date}${row.entry_time === null ? "" : ` ${row.entry_time}`} can no longer be sold, so it can no longer be cancelled.`,
    extensions: { ticketId: row.ticket_id, ticketDate: row.ticket_date, ...(row.entry_time === null ? {} : { entryTime: row.entry_time }) },
  });
}

/** The answer to a cancellation: the ticket as cancelled, and its refund. */
function cancellationOf(row: TicketRow, currency: string): TicketCancellation {
  return { ...ticketStatusOf(row, currency), refund: { amount: amountOf(row.refund_cents ?? 0) } };
}

async function cancelOnce(
  db: Db,
  ticketId: string,
  context: CancellationContext,
  claim: IdempotencyClaimHeld | undefined,
): Promise<TicketCancellation> {
  const batch = new Batch(db);
  const { cancelled, held } = addBoxOfficeCancellation(batch, { ticketId }, context, claim);
  const ticket = batch.add(selectTicket(db, ticketId, sellerScope(context.principal)));
  await batch.run();
  const row = ticket.value;
  if (!row) throw ticketNotFound(ticketId);
  if (held && !held.value) throw keyStillInProgress();
  if (cancelled.value.length === 0) throw notCancellable(row, context.currency);
  // This isolate's images of the ticket show it cancelled at once.
  forgetTicketLookups();
  return cancellationOf(row, context.currency);
}

/**
 * Cancels one ticket at the box office (admin, box-office: any; sales: its own), in one
 * batch, under the request's Idempotency-Key (if any). Its place is free at
 * once and its refund is the price recorded at the sale. Round trips: 1, +1
 * for a key's claim.
 */
export async function cancelTicketAtBoxOffice(
  db: Db,
  ticketId: string,
  context: CancellationContext,
): Promise<{ cancellation: TicketCancellation; replayed: boolean }> {
  const { result, replayed } = await runKeyed<StoredCancellation, TicketCancellation>({
    db,
    scope: { accountName: context.principal.name, operation: "cancelTicket", key: context.idempotencyKey },
    request: { ticketId, reason: context.reason ?? null },
    run: (claim) => cancelOnce(db, ticketId, context, claim),
    replay: async () => {
      const row = await runStep(selectTicket(db, ticketId, sellerScope(context.principal)));
      // A ticket is never deleted: the key's ticket (the account's own, when scoped) is always there.
      if (!row) throw new Error(`Ticket ${ticketId} of a stored key is missing`);
      return cancellationOf(row, context.currency);
    },
    now: context.now,
  });
  return { cancellation: result, replayed };
}

function orderCancellationOf(order: OrderRow, tickets: OrderTicketRow[], cancelled: CancelledTicket[], currency: string): OrderCancellation {
  return {
    ...orderStatusOf(order, tickets, currency),
    refund: { amount: totalOf(cancelled.map((ticket) => ticket.refund_cents)) },
  };
}

async function cancelOrderOnce(
  db: Db,
  orderId: string,
  context: CancellationContext,
  claim: IdempotencyClaimHeld | undefined,
): Promise<OrderCancellation> {
  const batch = new Batch(db);
  const seller = sellerScope(context.principal);
  // A held order is released: its held tickets (below) give their places back, refund 0.
  const releasable = orderRecordedAs(orderId, "held", seller);
  batch.add(settleHeldOrder(db, orderId, "released", claim ? sql`${releasable} AND ${claimHeld(claim)}` : releasable));
  const { cancelled, held } = addBoxOfficeCancellation(batch, { orderId }, context, claim);
  const { order, tickets } = addOrderReads(batch, orderId, seller);
  context.also?.(batch);
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
  return orderCancellationOf(order.value, tickets.value, cancelled.value, context.currency);
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
    run: (claim) => cancelOrderOnce(db, orderId, context, claim),
    replay: async ({ cancellationId }) => {
      const batch = new Batch(db);
      const { order, tickets } = addOrderReads(batch, orderId, sellerScope(context.principal));
      const cancelled = batch.add(selectCancelledBy(db, cancellationId));
      await batch.run();
      // An order is never deleted: the key's order is always there.
      if (!order.value) throw new Error(`Order ${orderId} of a stored key is missing`);
      return orderCancellationOf(order.value, tickets.value, cancelled.value, context.currency);
    },
    now: context.now,
  });
  return { cancellation: result, replayed };
}
