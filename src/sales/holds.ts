// Holds while the buyer pays (docs/orders.md, "Holds"): a held order is
// confirmed or its hold extended in one batch, decided by the database's
// clock inside it. A late confirmation (the hold ran out) sells the held
// tickets again under the sale's own conditions (conditions.ts).
import sql, { raw } from "sql-template-tag";
import type { Principal } from "../env";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { addKeyCompletion, keyStillInProgress, runKeyed } from "../idempotency/keys";
import { claimAnswered, claimHeld, type IdempotencyClaimHeld } from "../idempotency/statements";
import { Batch, type Db } from "../platform/batch";
import type { MuseumNow } from "../platform/dates";
import { forgetTicketLookups } from "../ticket-image";
import { sellerScope } from "../tickets/access";
import type { TicketLine } from "../tickets/schemas";
import { alignOrderHold, anyOrderTicketFails, confirmHeldTickets, extendOrderHold, orderHoldLive, orderLacksEmail, selectOrderTickets } from "../tickets/statements/holds";
import { linesAhead, orderLines, ticketLineColumns } from "../tickets/statements/lines";
import type { TicketRow } from "../tickets/statements/rows";
import { salesEndInstant, ticketSellable } from "./conditions";
import { addOrderReads, duplicateReference, heldOrderBefore, heldOrderLacksEmail, orderStatusOf } from "./orders";
import { explainRefusal, requestRefusal } from "./refusal";
import { HOLD_LIMIT_MINUTES, type OrderConfirmation, type OrderStatus } from "./schemas";
import { holdEndOf } from "./sell";
import {
  isDuplicateReference,
  type OrderDetails,
  orderHoldLimit,
  orderRecordedAs,
  type OrderRow,
  selectHoldState,
  settleHeldOrder,
} from "./statements";

/** Who confirms or extends a hold, and when. */
export type HoldContext = {
  principal: Principal;
  museumNow: MuseumNow;
  currency: string;
  now?: Date;
  /** The primary, for a read that must see what refused the write (platform/fresh-read.ts). */
  primaryDb: () => Db;
};

/** What a confirmation stores for its Idempotency-Key: whether it was late. */
type StoredConfirmation = { late: boolean };

function holdExpired(orderId: string, extensions: Record<string, unknown> = {}): ProblemError {
  return new ProblemError(409, {
    type: PROBLEM_TYPES.holdExpired,
    title: "Hold expired",
    detail: "This order's hold ran out and its places are no longer all free; nothing was sold.",
    extensions: { orderId, ...extensions },
  });
}

/** The lines of an order as written, for explaining why they cannot be sold again. */
function linesOf(tickets: TicketRow[]): TicketLine[] {
  return tickets.map((t) =>
    t.ticket_type === "event"
      ? { ticketType: "event", ticketDate: t.ticket_date, eventId: t.event_id! }
      : { ticketType: "general", ticketDate: t.ticket_date, ...(t.entry_time === null ? {} : { entryTime: t.entry_time }) },
  );
}

/**
 * The 409 of a late confirmation refused (one more round trip): the order's
 * lines judged as a new sale now; `available` (and `availableEntryTimes`,
 * `line`) as its sold-out answer says.
 */
async function lateConfirmationRefused(db: Db, orderId: string, tickets: TicketRow[], now: MuseumNow): Promise<ProblemError> {
  const lines = linesOf(tickets);
  const problem = requestRefusal(await explainRefusal(lines, now, new Batch(db)), "tickets");
  if (!problem) {
    return new ProblemError(409, {
      detail: "The places of this order changed while it was confirmed; send it again.",
      headers: { "Retry-After": "0" },
    });
  }
  const { available, availableEntryTimes, line } = problem.problem.extensions ?? {};
  return holdExpired(orderId, { available: available ?? 0, ...(availableEntryTimes ? { availableEntryTimes } : {}), ...(line === undefined ? {} : { line }) });
}

/** What a seller records with a confirmation beyond the buyer's contact, and reads of its own in the same batch (also an extension's). */
export type ConfirmationExtras = { details?: OrderDetails; also?: (batch: Batch) => void };

async function confirmOnce(
  db: Db,
  orderId: string,
  contact: { email?: string; phone?: string },
  context: HoldContext & ConfirmationExtras,
  claim: IdempotencyClaimHeld | undefined,
): Promise<OrderConfirmation> {
  const seller = sellerScope(context.principal);
  const batch = new Batch(db);
  const before = batch.add(selectHoldState(db, orderId, seller));
  const t = raw("t");
  // Late (the hold ran out): every held ticket must be sellable again, in
  // the order of the lines, as a new sale of them would be.
  const ahead = linesAhead(orderLines(sql`${t}.order_id`), ticketLineColumns(t));
  const fits = sql`NOT ${anyOrderTicketFails(orderId, ticketSellable(t, context.museumNow, ahead))}`;
  const confirming = sql`${orderRecordedAs(orderId, "held", seller)}
    AND (${contact.email ?? null} IS NOT NULL OR NOT ${orderLacksEmail(orderId)})
    AND (${orderHoldLive(orderId)} OR ${fits})`;
  let confirmingNow = confirming;
  let keyHeld;
  if (claim) {
    // The key's answer is written first, while the hold's state (late or
    // not) is still there to store; the confirmation then requires it.
    keyHeld = addKeyCompletion(batch, claim, {
      resourceId: orderId,
      body: sql`json_object('late', json(CASE WHEN ${orderRecordedAs(orderId, "held", seller)} AND NOT ${orderHoldLive(orderId)}
                                              THEN 'true' ELSE 'false' END))`,
      written: sql`(${confirming} AND ${claimHeld(claim)}) OR ${orderRecordedAs(orderId, "confirmed", seller)}`,
    });
    confirmingNow = sql`${confirming} AND ${claimAnswered(claim)}`;
  }
  const confirmed = batch.add(settleHeldOrder(db, orderId, "confirmed", confirmingNow, context.details));
  batch.add(confirmHeldTickets(db, orderId, contact, orderRecordedAs(orderId, "confirmed", null)));
  const ticketsAfter = batch.add(selectOrderTickets(db, orderId, seller));
  context.also?.(batch);
  try {
    await batch.run();
  } catch (error) {
    const reference = context.details?.reference;
    if (typeof reference === "string" && isDuplicateReference(error)) {
      throw await duplicateReference({ db, primaryDb: context.primaryDb }, context.principal.name, reference);
    }
    throw error;
  }

  const { order, state } = heldOrderBefore(before.value, orderId);
  if (keyHeld && !keyHeld.value) throw keyStillInProgress();
  // Only its status changes, and only by this batch's settle.
  const orderAfter = { ...order, status: confirmed.value ? "confirmed" : order.status } satisfies OrderRow;
  const answer = orderStatusOf(orderAfter, ticketsAfter.value, context.currency);
  if (state === "confirmed") return answer;
  if (confirmed.value) {
    // This isolate's images of the tickets: a held ticket had none.
    forgetTicketLookups();
    return state === "expired" ? { ...answer, lateConfirmation: true } : answer;
  }
  if (contact.email === undefined && before.value.lacksEmail) {
    throw heldOrderLacksEmail();
  }
  // Nothing was written: its tickets read after are as they were.
  throw await lateConfirmationRefused(db, orderId, ticketsAfter.value, context.museumNow);
}

/**
 * Confirms a held order (the account that held it, admin, box-office),
 * under the request's Idempotency-Key (if any): its tickets sold at the
 * prices recorded when it was held, with the buyer's contact when given.
 * A confirmed order answers again unchanged; a hold that ran out is sold
 * while all its places are still free (`lateConfirmation`). Round trips: 1,
 * +1 for a key's claim, +1 to explain a refused late confirmation.
 */
export async function confirmHeldOrder(
  db: Db,
  orderId: string,
  contact: { email?: string; phone?: string },
  context: HoldContext & ConfirmationExtras & { idempotencyKey?: string },
): Promise<{ confirmation: OrderConfirmation; replayed: boolean }> {
  const { result, replayed } = await runKeyed<StoredConfirmation, OrderConfirmation>({
    db,
    scope: { accountName: context.principal.name, operation: "confirmOrder", key: context.idempotencyKey },
    request: { orderId, ...contact },
    run: (claim) => confirmOnce(db, orderId, contact, context, claim),
    replay: async ({ late }) => {
      const batch = new Batch(db);
      const { order, tickets } = addOrderReads(batch, orderId, sellerScope(context.principal));
      await batch.run();
      // An order is never deleted: the key's order is always there.
      if (!order.value) throw new Error(`Order ${orderId} of a stored key is missing`);
      const answer = orderStatusOf(order.value, tickets.value, context.currency);
      return late ? { ...answer, lateConfirmation: true } : answer;
    },
    now: context.now,
  });
  return { confirmation: result, replayed };
}

/**
 * Extends a live hold: it ends `holdMinutes` from the database's now, never
 * after the first of its tickets stops being sold nor HOLD_LIMIT_MINUTES
 * after its order was made. One round trip.
 */
export async function extendHeldOrder(
  db: Db,
  orderId: string,
  holdMinutes: number,
  context: HoldContext & Pick<ConfirmationExtras, "also">,
): Promise<OrderStatus> {
  const seller = sellerScope(context.principal);
  const batch = new Batch(db);
  const before = batch.add(selectHoldState(db, orderId, seller));
  const allowed = orderRecordedAs(orderId, "held", seller);
  const latest = orderHoldLimit(orderId, HOLD_LIMIT_MINUTES);
  const extended = batch.add(
    extendOrderHold(db, orderId, (ticket) => holdEndOf(salesEndInstant(ticket, context.museumNow), holdMinutes, latest), allowed),
  );
  batch.add(alignOrderHold(db, orderId));
  const ticketsAfter = batch.add(selectOrderTickets(db, orderId, seller));
  context.also?.(batch);
  await batch.run();

  const { order, state } = heldOrderBefore(before.value, orderId);
  if (state === "confirmed") {
    throw new ProblemError(409, {
      type: PROBLEM_TYPES.orderConfirmed,
      title: "Order confirmed",
      detail: "This order is confirmed (sold); it has no hold to extend.",
      extensions: { orderId },
    });
  }
  if (extended.value === 0) throw holdExpired(orderId);
  // An extension changes the tickets' hold, never the order's row.
  return orderStatusOf(order, ticketsAfter.value, context.currency);
}
