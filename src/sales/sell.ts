// The one way tickets are sold (POST /tickets and POST /orders alike): one or
// more lines checked, then written all or nothing in one batch whose inserts
// require the sale's conditions (conditions.ts); a refusal is explained by
// the same conditions (refusal.ts).
import sql, { join, type Sql } from "sql-template-tag";
import { addKeyCompletion, keyStillInProgress, runKeyed } from "../idempotency/keys";
import { claimHeld, type IdempotencyClaimHeld, selectClaimHeld } from "../idempotency/statements";
import { ProblemError } from "../http/problem";
import { validationProblem } from "../http/errors";
import { Batch, type Db, GuardRaced, runStep } from "../platform/batch";
import type { MuseumNow } from "../platform/dates";
import { log } from "../platform/log";
import { sqlNowShiftedSeconds } from "../platform/sql";
import { isDuplicateReference, isOrderCodeClash, isOrderIdTaken, type OrderRow, selectHoldState } from "./statements";
import { duplicateReference, heldOrderLacksEmail } from "./orders";
import type { TicketLine, TicketType } from "../tickets/schemas";
import { alignOrderHold, orderHoldEnd, orderLacksEmail } from "../tickets/statements/holds";
import { requestLineColumns, requestLines } from "../tickets/statements/lines";
import { buyerContactOf } from "../tickets/statements/orders";
import { insertTicket, ticketExists, ticketsWritten, withRecordedPrices } from "../tickets/statements/sale";
import { checkLine, linePrice, readEventsForSale } from "./checks";
import { allOf, conditionsOf, entryTimeOfLine, lineSalesEndInstant, NONE_AHEAD } from "./conditions";
import { newConfirmationCode, newOrderCode } from "./confirmation-code";
import { addOrderWrite, OrderIdTaken, type OrderOfSale } from "./order-write";
import { explainRefusal, type LineAddressing, requestRefusal } from "./refusal";

// A clash of two random 11-character codes is astronomically rare, and so is
// a refused write that nothing explains a moment later (a place freed
// meanwhile): one more try is plenty for either.
const WRITE_ATTEMPTS = 2;

/** What is sold: the lines, the buyer's contact, and whether they make an order (`POST /orders`) or a single ticket. */
export type SaleRequest = OrderOfSale & {
  lines: readonly TicketLine[];
  /**
   * The buyer's e-mail: required unless the sale is held (its confirmation
   * brings it then) or changes a held order's lines (none: the new lines keep
   * the buyer's e-mail and phone, a sale at once only when there is an e-mail).
   */
  email: string | undefined;
  phone?: string;
  /** Steps of the caller (reads for its answer) run in the sale's batch after its writes; called again for a retried batch. */
  also?: (batch: Batch, orderId: string) => void;
  /** Held for this many minutes while the buyer pays (an order only); none: sold at once. */
  holdMinutes?: number;
  /** `tickets`: an order, its lines addressed as `tickets[i]`; `body`: one ticket, the body itself. */
  addressing: LineAddressing;
  /** The request as sent: what its Idempotency-Key is bound to. */
  body: unknown;
};

/** What the seller's side knows about a sale beyond the request body. */
export type SaleContext = {
  /** The account selling (the authenticated principal). */
  soldBy: string;
  /** The museum's date and time now: today's general tickets are sold until closing. */
  museumNow: MuseumNow;
  /** The operation whose Idempotency-Key makes the sale safe to retry (scoped to `soldBy`). */
  idempotency: { operation: "buyMuseumTickets" | "createOrder"; key: string | undefined };
  /** The clock of the key's claim; now by default. */
  now?: Date;
  /** The primary, for a read that must see what refused the write (platform/fresh-read.ts). */
  primaryDb: () => Db;
};

/** A ticket as sold. */
type SoldTicket = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: string;
  eventId?: string;
  eventName?: string;
  entryTime?: string;
  /** The price recorded and the category (and its name), as the insert decided them. */
  priceCents: number;
  category: string;
  categoryName: string;
  confirmationCode: string;
};

/**
 * What was sold: the order (for `POST /orders`) and its tickets, in the order
 * of the lines; a held order's `expiresAt` (RFC 3339 UTC, the database's clock).
 */
export type Sale = {
  orderId?: string;
  /** The order's own code. */
  confirmationCode?: string;
  tickets: SoldTicket[];
  expiresAt?: string;
  /** The order as written. */
  order?: OrderRow;
};

/**
 * When a held line's hold ends (an SQL timestamp, the database's clock):
 * `holdMinutes` from now, but never after `salesEnd` (the moment the line
 * stops being sold; NULL: none), nor after `latest` (an SQL timestamp) when given.
 */
export function holdEndOf(salesEnd: Sql, holdMinutes: number, latest?: Sql): Sql {
  const wanted = sqlNowShiftedSeconds(holdMinutes * 60);
  const ends = [wanted, sql`coalesce(${salesEnd}, ${wanted})`, ...(latest ? [latest] : [])];
  return sql`min(${join(ends)})`;
}

/**
 * Where an operation's answer shows what the sale's insert decides (JSON
 * paths): its array of tickets (each gets its `price` and `category`) and
 * their total. The answer an Idempotency-Key stores is written in the
 * sale's own batch, so these are filled in there from the rows written.
 */
type DecidedInAnswer = { tickets: string; total: string };

/** The answer to store for a key: `placeholder` (the answer with nothing decided yet) with what the insert decided filled in. */
function storedAnswer(placeholder: unknown, decided: DecidedInAnswer | undefined): Sql | string {
  const body = JSON.stringify(placeholder);
  return decided ? withRecordedPrices(body, decided) : body;
}

/** True when a write failed on a clash of two confirmation codes (worth one more try with new ones). */
function isConfirmationCodeClash(error: unknown): boolean {
  return error instanceof Error && error.message.includes("tickets.confirmation_code");
}

/** The 409 of a write refused by a change that nothing explains a moment later. */
function placesChanged(): ProblemError {
  return new ProblemError(409, {
    detail: "The places for this purchase changed while it was written; send it again.",
    headers: { "Retry-After": "0" },
  });
}

/**
 * Writes the sale in one batch (one round trip): the order row, one guarded
 * insert per line (each sees the lines before it, so lines for one day, slot
 * or event date count together), a guard that every line was written, and,
 * with a claim, the key's answer. A refusal is explained (one more round trip).
 */
async function writeSale<Answer>(
  db: Db,
  request: SaleRequest,
  sale: Sale,
  context: SaleContext,
  claim: IdempotencyClaimHeld | undefined,
  answer: SaleAnswer<Answer>,
): Promise<Written<Answer>> {
  const { lines, holdMinutes } = request;
  const batch = new Batch(db);
  const claimGuard = claim ? claimHeld(claim) : sql`1`;
  const held = sale.orderId !== undefined && holdMinutes !== undefined ? { orderId: sale.orderId, holdMinutes } : null;
  const { written: order, holdLatest, formerLines } = sale.orderId
    ? addOrderWrite(batch, { ...request, orderId: sale.orderId, confirmationCode: sale.confirmationCode, soldBy: context.soldBy, held: held !== null }, claimGuard)
    : { written: null, holdLatest: undefined, formerLines: undefined };
  // New lines without a contact of their own keep the buyer's as the batch finds it, not as read before it.
  const keepsContact = formerLines !== undefined && request.email === undefined;
  const contact = keepsContact ? buyerContactOf(formerLines) : { email: request.email, phone: request.phone };
  if (keepsContact && !held) {
    batch.guard(orderLacksEmail(formerLines), async () =>
      (await runStep(selectHoldState(db, sale.orderId!, context.soldBy))).lacksEmail ? heldOrderLacksEmail() : null,
    );
  }
  const all = requestLines(lines);
  const written = sale.tickets.map((ticket, i) => {
    const line = lines[i]!;
    const conditions = conditionsOf({ line, columns: requestLineColumns(line, i), lines: all }, context.museumNow, NONE_AHEAD);
    const entry = entryTimeOfLine(line);
    return batch.add(
      insertTicket(
        db,
        {
          ...line,
          ...contact,
          ticketId: ticket.ticketId,
          confirmationCode: ticket.confirmationCode,
          price: linePrice(lines[i]!),
          entry,
          soldBy: context.soldBy,
          ...(sale.orderId ? { order: { orderId: sale.orderId, line: i } } : {}),
          ...(held ? { holdUntil: holdEndOf(lineSalesEndInstant(line, context.museumNow), held.holdMinutes, holdLatest) } : {}),
        },
        { from: conditions.from, requires: sql`${allOf(conditions)} AND ${claimGuard}` },
      ),
    );
  });
  // One end for the order: the first of its lines to stop being sold (one line's is its own).
  const aligned = held && lines.length > 1 ? batch.add(alignOrderHold(db, held.orderId)) : null;
  const ticketIds = sale.tickets.map((ticket) => ticket.ticketId);
  // All or nothing: a line its insert refused undoes the whole sale.
  batch.guard(sql`${ticketsWritten(ticketIds)} <> ${ticketIds.length}`, async () => {
    const explaining = new Batch(db);
    const claimStillHeld = claim && explaining.add(selectClaimHeld(db, claim));
    const problems = await explainRefusal(lines, context.museumNow, explaining);
    if (claimStillHeld && !claimStillHeld.value) {
      // This request stalled past the takeover; the request that took the
      // key over answers it (a retry gets its response).
      log.warn("idempotency claim taken over before the sale was written", { soldBy: context.soldBy });
      return keyStillInProgress();
    }
    return requestRefusal(problems, request.addressing);
  });
  if (claim) {
    const stored = storedAnswer(answer.of(held ? { ...sale, expiresAt: "" } : sale), answer.decided);
    // A held order's stored answer takes its expiresAt from the database, as the answer does.
    const body = held ? sql`json_set(${stored}, '$.expiresAt', ${orderHoldEnd(held.orderId)})` : stored;
    addKeyCompletion(batch, claim, { resourceId: sale.orderId ?? ticketIds[0]!, body, written: ticketExists(ticketIds[0]!) });
  }
  if (sale.orderId) request.also?.(batch, sale.orderId);
  await batch.run();
  const rows = written.map((step) => step.value!);
  const sold: Sale = {
    ...sale,
    ...(order?.value ? { order: order.value } : {}),
    ...(held ? { expiresAt: aligned ? aligned.value! : rows[0]!.hold_until! } : {}),
    tickets: sale.tickets.map((ticket, i) => {
      const row = rows[i]!;
      return {
        ...ticket,
        // A start time's entry time is the day's to decide (the insert's).
        ...(row.entry_time === null ? {} : { entryTime: row.entry_time }),
        priceCents: row.price_cents,
        category: row.category,
        categoryName: row.category_name,
      };
    }),
  };
  return { answer: answer.of(sold), sale: sold };
}

/** A sale's answer and, when it was written now (not replayed), the sale as written. */
type Written<Answer> = { answer: Answer; sale?: Sale };

/** Checks the lines against the clock and their events, then writes them (retrying once, see WRITE_ATTEMPTS). */
async function checkAndWrite<Answer>(
  db: Db,
  request: SaleRequest,
  context: SaleContext,
  claim: IdempotencyClaimHeld | undefined,
  answer: SaleAnswer<Answer>,
): Promise<Written<Answer>> {
  const { lines } = request;
  const events = await readEventsForSale(db, lines);
  const checks = lines.map((line) => checkLine(line, { today: context.museumNow.today, events }));
  const refused = requestRefusal(
    checks.map((check) =>
      check.kind === "invalid" ? validationProblem(check.errors) : check.kind === "not-found" ? check.problem : null,
    ),
    request.addressing,
  );
  if (refused) throw refused;
  // Every line passed its checks: each has its event's name, if any.
  const priced = checks.flatMap((check) => (check.kind === "ok" ? [check] : []));

  const orderId = request.addressing === "tickets" ? (request.orderId ?? crypto.randomUUID()) : undefined;
  const ticketIds = lines.map(() => crypto.randomUUID());
  for (let attempt = 1; ; attempt += 1) {
    const sale: Sale = {
      ...(orderId ? { orderId, ...(request.relining ? {} : { confirmationCode: newOrderCode() }) } : {}),
      tickets: lines.map((line, i) => {
        const check = priced[i]!;
        return {
          ticketId: ticketIds[i]!,
          ticketType: line.ticketType,
          ticketDate: line.ticketDate,
          ...(line.ticketType === "event" ? { eventId: line.eventId, eventName: check.eventName } : {}),
          ...(line.ticketType === "general" && line.entryTime !== undefined ? { entryTime: line.entryTime } : {}),
          // Decided by the insert (read back once it has run).
          priceCents: 0,
          category: "",
          categoryName: "",
          confirmationCode: newConfirmationCode(line.ticketType),
        };
      }),
    };
    try {
      return await writeSale(db, request, sale, context, claim, answer);
    } catch (error) {
      if (request.reference !== undefined && isDuplicateReference(error)) {
        throw await duplicateReference({ db, primaryDb: context.primaryDb }, context.soldBy, request.reference);
      }
      if (request.orderId !== undefined && !request.relining && isOrderIdTaken(error)) throw new OrderIdTaken(request.orderId);
      const retry = isConfirmationCodeClash(error) || isOrderCodeClash(error) || error instanceof GuardRaced;
      if (retry && attempt < WRITE_ATTEMPTS) continue;
      if (error instanceof GuardRaced) throw placesChanged();
      throw error;
    }
  }
}

/**
 * The HTTP shape of an operation's answer (`of`), which is also what a
 * replay of its key answers, and where it shows what the insert decides.
 */
export type SaleAnswer<Answer> = { of: (sale: Sale) => Answer; decided?: DecidedInAnswer };

/**
 * Sells the request's lines under its Idempotency-Key (if any), all or
 * nothing, and answers with `answer.of(sale)`: the HTTP shape of the operation,
 * which is also what a replay of the key answers. Round trips: 1 for the
 * write (however many lines), +1 when a line is an event ticket (the events
 * are read), +1 for a key's claim, +1 to explain a refusal.
 */
export async function sell<Answer>(
  db: Db,
  request: SaleRequest,
  context: SaleContext,
  answer: SaleAnswer<Answer>,
): Promise<{ answer: Answer; replayed: boolean; sale?: Sale }> {
  const { result, replayed } = await runKeyed<Answer, Written<Answer>>({
    db,
    scope: { accountName: context.soldBy, ...context.idempotency },
    request: request.body,
    run: (claim) => checkAndWrite(db, request, context, claim, answer),
    replay: async (stored) => ({ answer: stored }),
    now: context.now,
  });
  return { ...result, replayed };
}
