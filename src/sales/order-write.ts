// The order row of a sale (POST /orders, a reseller's booking): a new order,
// made with the id its seller chose or one of its own; or the held order
// whose lines change, its former lines set aside on a released order in the
// sale's own batch so that they give their places back before the new lines
// take theirs (the order keeps its id, code and reference).
import sql, { type Sql } from "sql-template-tag";
import { type Batch, type Handle, runStep } from "../platform/batch";
import { orderHoldEnd } from "../tickets/statements/holds";
import { moveOrderTickets, releaseHeldTickets } from "../tickets/statements/orders";
import { HOLD_LIMIT_MINUTES } from "./schemas";
import {
  type BuyerDetails,
  insertLinesAside,
  insertOrder,
  linesSetAside,
  orderHoldLimit,
  type OrderRow,
  selectRelinable,
  settleHeldOrder,
  updateOrderDetails,
} from "./statements";

/** What a sale's request says of its order beyond its lines. */
export type OrderOfSale = {
  /** The seller's own reference of an order (unique per seller). */
  reference?: string;
  /**
   * The order's id when the seller chose it (a reseller's booking uuid, an
   * order only): an id that names an order already is `OrderIdTaken`.
   */
  orderId?: string;
  /**
   * The lines of the held order `orderId` change to this sale's (an order
   * only): its former tickets are set aside on a released order and give
   * their places back in the sale's batch, before its new lines are written
   * (so they count for them); the order keeps its id, code and reference.
   * Held again (`holdMinutes`) or sold at once (none: a confirmation).
   * `whileLive`: only while its hold is live (a confirmation may be late);
   * `keepHoldEnd`: held again, the new lines' hold ends when the former
   * lines' did (never later than `holdMinutes` from now).
   */
  relining?: { whileLive: boolean; keepHoldEnd?: boolean };
  /** What the seller records of the buyer beyond e-mail and phone, and its notes on the order. */
  buyer?: BuyerDetails;
  notes?: string;
};

/** A sale refused because the order id its seller chose names an order already (the seller's own, or another's). */
export class OrderIdTaken extends Error {
  constructor(readonly orderId: string) {
    super("An order with this id exists");
  }
}

/** A change of lines refused because the order is not (or no longer) held by this seller, or its hold ran out. */
export class OrderNotHeld extends Error {
  constructor(readonly orderId: string) {
    super("The order is not held");
  }
}

/**
 * Adds the order's write to the sale's batch, before its lines: a new order
 * (while `guard` holds), or the relining of a held one. Returns the new
 * order as written once the batch has run (null when relining), the
 * latest its new lines' hold may end (an SQL timestamp: a relined order's
 * hold stays within HOLD_LIMIT_MINUTES of its making; a new one's does by
 * itself) and, when relining, the order its former lines are set aside on.
 */
export function addOrderWrite(
  batch: Batch,
  order: OrderOfSale & { orderId: string; confirmationCode?: string; soldBy: string; held: boolean },
  guard: Sql,
): { written: Handle<OrderRow | null> | null; holdLatest?: Sql; formerLines?: string } {
  const { db } = batch;
  const { orderId, soldBy } = order;
  const details = { reference: order.reference, buyer: order.buyer, notes: order.notes };
  if (!order.relining) {
    const written = batch.add(insertOrder(db, { orderId, soldBy, held: order.held, confirmationCode: order.confirmationCode!, ...details }, guard));
    return { written };
  }
  const { whileLive } = order.relining;
  const asideId = crypto.randomUUID();
  const aside = linesSetAside(orderId, asideId);
  batch.add(insertLinesAside(db, orderId, asideId, soldBy, whileLive));
  // Another guard of the sale may be the one violated: the order is named not held only when it still is not.
  batch.guard(sql`NOT ${aside}`, async () => ((await runStep(selectRelinable(db, orderId, soldBy, whileLive))) ? null : new OrderNotHeld(orderId)));
  batch.addAll(moveOrderTickets(db, orderId, asideId, aside), releaseHeldTickets(db, asideId, aside));
  if (order.held) batch.add(updateOrderDetails(db, orderId, soldBy, details, aside));
  else batch.add(settleHeldOrder(db, orderId, "confirmed", aside, details));
  const limit = orderHoldLimit(orderId, HOLD_LIMIT_MINUTES);
  // The former lines (aside now) still have their hold's end, within the limit already.
  return { written: null, holdLatest: order.relining.keepHoldEnd ? sql`coalesce(${orderHoldEnd(asideId)}, ${limit})` : limit, formerLines: asideId };
}
