// A sale (POST /tickets): the rules and the order of steps.
import { validationProblem } from "../../http/errors";
import { ProblemError } from "../../http/problem";
import { addKeyCompletion, keyStillInProgress, runKeyed } from "../../idempotency/keys";
import { claimHeld, type IdempotencyClaimHeld } from "../../idempotency/statements";
import { Batch, type Db, type Handle } from "../../platform/batch";
import type { MuseumNow } from "../../platform/dates";
import { log } from "../../platform/log";
import type { BuyMuseumTicketsResponse, Purchase } from "../schemas";
import { insertTicket, type NewTicket, ticketExists } from "../statements";
import { checkLine, readActiveEvents } from "./checks";
import { newConfirmationCode } from "./confirmation-code";
import { explainRefusal } from "./refusal";

const MESSAGES = {
  general: "Museum general entry ticket purchased",
  event: "Museum special event ticket purchased",
} as const;

// A clash of two random 11-character codes is astronomically rare, and so is
// a refused insert that nothing explains a moment later (a place freed
// meanwhile): one more try is plenty for either.
export const WRITE_ATTEMPTS = 2;

/** What the seller's side knows about a sale beyond the request body. */
export type SaleContext = {
  /** The account selling (the authenticated principal). */
  soldBy: string;
  /** The museum's date and time now: today's general tickets are sold until closing. */
  museumNow: MuseumNow;
  generalPriceCents: number;
  /** Makes the purchase safe to retry (scoped to `soldBy`). */
  idempotencyKey?: string;
  /** The clock of the key's claim; now by default. */
  now?: Date;
};

/** A sale: the response to send, and whether it is the stored response of an earlier request with the same key. */
export type Sale = { response: BuyMuseumTicketsResponse; replayed: boolean };

/** True when a write failed on a clash of two confirmation codes (worth one more try with new ones). */
export function isConfirmationCodeClash(error: unknown): boolean {
  return error instanceof Error && error.message.includes("tickets.confirmation_code");
}

/** The 409 of a write refused by a change that nothing explains a moment later. */
export function placesChanged(): ProblemError {
  return new ProblemError(409, {
    detail: "The places for this purchase changed while it was written; send it again.",
    headers: { "Retry-After": "0" },
  });
}

/**
 * What came of a ticket's write: written; refused because the sale's
 * condition does not hold at the moment of writing (for a general ticket the
 * museum is closed that day; for an event ticket the event was cancelled or
 * lost that date since it was read); or refused because the purchase's
 * Idempotency-Key claim was taken over by another request meanwhile.
 */
export type InsertOutcome = "inserted" | "refused" | "claim-lost";

/**
 * Writes a ticket and, when the purchase carries an Idempotency-Key, the
 * key's stored response, in one atomic batch (one round trip). With a claim,
 * the insert itself requires that the claim still holds the key, and the
 * batch reads whether it does, to tell "claim-lost" from "refused".
 */
export async function writeTicket(
  db: Db,
  ticket: NewTicket,
  idempotency?: { claim: IdempotencyClaimHeld; responseBody: string },
): Promise<InsertOutcome> {
  const batch = new Batch(db);
  const inserted = batch.add(insertTicket(db, ticket, idempotency && claimHeld(idempotency.claim)));
  let held: Handle<boolean> | undefined;
  if (idempotency) {
    held = addKeyCompletion(batch, idempotency.claim, {
      resourceId: ticket.ticketId,
      body: idempotency.responseBody,
      written: ticketExists(ticket.ticketId),
    });
  }
  await batch.run();
  if (inserted.value) return "inserted";
  return held === undefined || held.value ? "refused" : "claim-lost";
}

/** Checks the sale and writes the ticket (and, with a claim, the key's response, in the same batch). */
async function writeSale(
  db: Db,
  purchase: Purchase,
  context: SaleContext,
  claim: IdempotencyClaimHeld | undefined,
): Promise<BuyMuseumTicketsResponse> {
  const events = await readActiveEvents(db, purchase.ticketType === "event" ? [purchase.eventId] : []);
  const checked = checkLine(purchase, { today: context.museumNow.today, events, generalPriceCents: context.generalPriceCents });
  if (checked.kind === "invalid") throw validationProblem(checked.errors);
  if (checked.kind === "not-found") throw checked.problem;
  const { eventName, priceCents } = checked;
  const ticketId = crypto.randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    const confirmationCode = newConfirmationCode(purchase.ticketType);
    const response: BuyMuseumTicketsResponse = {
      message: MESSAGES[purchase.ticketType],
      ticketId,
      ...(eventName === undefined ? {} : { eventName }),
      ticketType: purchase.ticketType,
      ticketDate: purchase.ticketDate,
      ...(purchase.ticketType === "general" && purchase.entryTime !== undefined ? { entryTime: purchase.entryTime } : {}),
      confirmationCode,
    };
    let outcome: InsertOutcome;
    try {
      outcome = await writeTicket(
        db,
        { ...purchase, ticketId, confirmationCode, priceCents, soldBy: context.soldBy, museumNow: context.museumNow },
        claim && { claim, responseBody: JSON.stringify(response) },
      );
    } catch (error) {
      if (attempt < WRITE_ATTEMPTS && isConfirmationCodeClash(error)) continue;
      throw error;
    }
    switch (outcome) {
      case "inserted":
        return response;
      case "refused": {
        const problem = await explainRefusal(db, purchase, context.museumNow);
        if (problem) throw problem;
        if (attempt < WRITE_ATTEMPTS) continue;
        throw placesChanged();
      }
      case "claim-lost":
        // This request stalled past the takeover; the request that took the
        // key over answers it (a retry gets its response).
        log.warn("idempotency claim taken over before the ticket was written", { soldBy: context.soldBy });
        throw keyStillInProgress();
    }
  }
}

/**
 * Sells one ticket: under its Idempotency-Key (if any), checks the sale and
 * writes the ticket together with the key's response. Round trips: 1 for a
 * general ticket without a key; +1 for an event ticket (its event is read),
 * +1 for a key's claim (and one more to give the key up when the sale fails).
 */
export async function sellTicket(db: Db, purchase: Purchase, context: SaleContext): Promise<Sale> {
  const { result, replayed } = await runKeyed<BuyMuseumTicketsResponse, BuyMuseumTicketsResponse>({
    db,
    scope: { accountName: context.soldBy, operation: "buyMuseumTickets", key: context.idempotencyKey },
    request: purchase,
    run: (claim) => writeSale(db, purchase, context, claim),
    replay: async (stored) => stored,
    now: context.now,
  });
  return { response: result, replayed };
}
