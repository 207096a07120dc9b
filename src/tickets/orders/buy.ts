// An order (POST /orders): several tickets sold all or nothing, in one batch.
import sql from "sql-template-tag";
import { validationProblem } from "../../http/errors";
import { ProblemError } from "../../http/problem";
import { addKeyCompletion, keyStillInProgress, runKeyed } from "../../idempotency/keys";
import { claimHeld, type IdempotencyClaimHeld, selectClaimHeld } from "../../idempotency/statements";
import { Batch, type Db, GuardRaced, runStep } from "../../platform/batch";
import type { MuseumNow } from "../../platform/dates";
import { amountOf, totalOf } from "../../platform/money";
import { checkLine, eventIdsOf, readActiveEvents } from "../sale/checks";
import { newConfirmationCode } from "../sale/confirmation-code";
import { explainLines } from "../sale/refusal";
import { isConfirmationCodeClash, placesChanged, WRITE_ATTEMPTS } from "../sale/sell";
import { insertTicket, orderTicketCount } from "../statements";
import type { Order, OrderRequest } from "./schemas";
import { insertOrder, orderExists } from "./statements";

export type OrderContext = {
  /** The account selling (the authenticated principal). */
  soldBy: string;
  museumNow: MuseumNow;
  generalPriceCents: number;
  currency: string;
  /** Makes the order safe to retry (scoped to `soldBy`). */
  idempotencyKey?: string;
  now?: Date;
};

/**
 * The problem of an order whose lines are refused (`refusals[i]`: line i's
 * problem, or null): every 400 at once, its fields under `tickets[i].`; else
 * the first 404; else the first 409. Each names the lowest refused line of
 * its kind in `line`. Null when no line is refused.
 */
export function orderRefusal(refusals: readonly (ProblemError | null)[]): ProblemError | null {
  const refused = refusals.flatMap((problem, line) => (problem ? [{ problem, line }] : []));
  const invalid = refused.filter(({ problem }) => problem.status === 400);
  if (invalid.length > 0) {
    const errors = invalid.flatMap(({ problem, line }) =>
      (problem.problem.errors ?? []).map((error) => ({ ...error, path: `tickets[${line}].${error.path}` })),
    );
    return validationProblem(errors, invalid[0]!.line);
  }
  const first = refused.find(({ problem }) => problem.status === 404) ?? refused[0];
  if (!first) return null;
  const { problem, line } = first;
  return new ProblemError(problem.status as 404 | 409, {
    ...problem.problem,
    detail: `Line ${line}: ${problem.problem.detail}`,
    extensions: { ...problem.problem.extensions, line },
  });
}

/** Checks the order's lines, then writes the order and its tickets (and, with a claim, the key's response) in one batch. */
async function writeOrder(
  db: Db,
  request: OrderRequest,
  context: OrderContext,
  claim: IdempotencyClaimHeld | undefined,
): Promise<Order> {
  const lines = request.tickets;
  const events = await readActiveEvents(db, eventIdsOf(lines));
  const checks = lines.map((line) =>
    checkLine(line, { today: context.museumNow.today, events, generalPriceCents: context.generalPriceCents }),
  );
  const refused = orderRefusal(
    checks.map((check) =>
      check.kind === "invalid" ? validationProblem(check.errors) : check.kind === "not-found" ? check.problem : null,
    ),
  );
  if (refused) throw refused;
  const priced = checks.map((check) => (check.kind === "ok" ? check : null)!);

  const orderId = crypto.randomUUID();
  const ticketIds = lines.map(() => crypto.randomUUID());
  for (let attempt = 1; ; attempt += 1) {
    const order: Order = {
      orderId,
      totalPrice: totalOf(priced.map((check) => check.priceCents)),
      currency: context.currency,
      tickets: lines.map((line, i) => ({
        ticketId: ticketIds[i]!,
        ticketType: line.ticketType,
        ticketDate: line.ticketDate,
        ...(line.ticketType === "event" ? { eventId: line.eventId, eventName: priced[i]!.eventName! } : {}),
        ...(line.ticketType === "general" && line.entryTime !== undefined ? { entryTime: line.entryTime } : {}),
        price: amountOf(priced[i]!.priceCents),
        confirmationCode: newConfirmationCode(line.ticketType),
      })),
    };
    const batch = new Batch(db);
    batch.add(insertOrder(db, { orderId, soldBy: context.soldBy }, claim && claimHeld(claim)));
    lines.forEach((line, i) => {
      const ticket = order.tickets[i]!;
      batch.add(
        insertTicket(
          db,
          {
            ...line,
            email: request.email,
            phone: request.phone,
            ticketId: ticket.ticketId,
            confirmationCode: ticket.confirmationCode,
            priceCents: priced[i]!.priceCents,
            soldBy: context.soldBy,
            museumNow: context.museumNow,
            order: { orderId, line: i },
          },
          orderExists(orderId),
        ),
      );
    });
    // All or nothing: a line its insert refused undoes the whole order.
    batch.guard(sql`${orderTicketCount(orderId)} <> ${lines.length}`, async () => {
      if (claim && !(await runStep(selectClaimHeld(db, claim)))) return keyStillInProgress();
      return orderRefusal(await explainLines(db, lines, context.museumNow));
    });
    if (claim) addKeyCompletion(batch, claim, { resourceId: orderId, body: JSON.stringify(order), written: orderExists(orderId) });
    try {
      await batch.run();
      return order;
    } catch (error) {
      const retry = isConfirmationCodeClash(error) || error instanceof GuardRaced;
      if (retry && attempt < WRITE_ATTEMPTS) continue;
      if (error instanceof GuardRaced) throw placesChanged();
      throw error;
    }
  }
}

/**
 * Sells an order under its Idempotency-Key (if any). Round trips: 1 for the
 * write (however many lines), +1 when a line is an event ticket (the events
 * are read), +1 for a key's claim.
 */
export async function buyOrder(db: Db, request: OrderRequest, context: OrderContext): Promise<{ order: Order; replayed: boolean }> {
  const { result, replayed } = await runKeyed<Order, Order>({
    db,
    scope: { accountName: context.soldBy, operation: "createOrder", key: context.idempotencyKey },
    request,
    run: (claim) => writeOrder(db, request, context, claim),
    replay: async (stored) => stored,
    now: context.now,
  });
  return { order: result, replayed };
}
