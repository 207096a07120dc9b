// A sale (POST /tickets): the rules and the order of steps.
import { eventNotFound } from "../../events/problems";
import { selectActiveEvent } from "../../events/statements";
import { PUBLISHED_DAYS_AHEAD } from "../../hours/calendar";
import { validationProblem } from "../../http/errors";
import { ProblemError } from "../../http/problem";
import { claimIdempotencyKey, releaseIdempotencyKey } from "../../idempotency/keys";
import { claimHeld, completeKey, type IdempotencyClaimHeld, selectClaimHeld } from "../../idempotency/statements";
import { Batch, type Db, type Handle, runStep } from "../../platform/batch";
import { sha256Hex } from "../../platform/crypto";
import { addDays, type IsoDate } from "../../platform/dates";
import { log } from "../../platform/log";
import type { BuyMuseumTicketsResponse, Purchase } from "../schemas";
import { insertTicket, type NewTicket, ticketExists } from "../statements";
import { newConfirmationCode } from "./confirmation-code";
import { explainRefusal } from "./refusal";

const MESSAGES = {
  general: "Museum general entry ticket purchased",
  event: "Museum special event ticket purchased",
} as const;

// A clash of two random 11-character codes is astronomically rare, and so is
// a refused insert that nothing explains a moment later (a place freed
// meanwhile): one more try is plenty for either.
const WRITE_ATTEMPTS = 2;

/** What the seller's side knows about a sale beyond the request body. */
export type SaleContext = {
  /** The account selling (the authenticated principal). */
  soldBy: string;
  /** Today in the museum's time zone. */
  today: IsoDate;
  /** The time now (`HH:mm`) in the museum's time zone: today's general tickets are sold until closing. */
  timeNow: string;
  generalPriceCents: number;
  /** Makes the purchase safe to retry (scoped to `soldBy`). */
  idempotencyKey?: string;
  /** The clock of the key's claim; now by default. */
  now?: Date;
};

/** A sale: the response to send, and whether it is the stored response of an earlier request with the same key. */
export type Sale = { response: BuyMuseumTicketsResponse; replayed: boolean };

function ticketDateProblem(message: string) {
  return validationProblem([{ path: "ticketDate", message }]);
}

/** Key-order-independent JSON, so the same body always hashes the same. */
function canonicalJson(body: Purchase): string {
  return JSON.stringify(Object.fromEntries(Object.entries(body).sort(([a], [b]) => (a < b ? -1 : 1))));
}

function isConfirmationCodeClash(error: unknown): boolean {
  return error instanceof Error && error.message.includes("tickets.confirmation_code");
}

function stillInProgress() {
  return new ProblemError(409, {
    detail: "A purchase with this Idempotency-Key is still being processed; retry shortly.",
    headers: { "Retry-After": "1" },
  });
}

/**
 * The sale rules that need the clock or the database and are checked before
 * the insert: the date is today or later (museum time zone) and within the
 * published year; an event ticket needs an active event on that date (even
 * when the museum is otherwise closed). Returns the event's name. A general
 * ticket's open day is checked by the insert itself (`insertTicket`).
 */
async function checkSale(db: Db, purchase: Purchase, today: IsoDate): Promise<{ eventName?: string }> {
  const date = purchase.ticketDate;
  if (date < today) throw ticketDateProblem(`Must be today (${today}) or later in the museum's time zone.`);
  const lastDay = addDays(today, PUBLISHED_DAYS_AHEAD);
  if (date > lastDay) throw ticketDateProblem(`Tickets are sold up to ${lastDay}.`);

  if (purchase.ticketType === "general") return {};
  const event = await runStep(selectActiveEvent(db, purchase.eventId));
  if (!event) throw eventNotFound(purchase.eventId);
  if (!event.dates.includes(date)) {
    throw ticketDateProblem(`The event does not take place on ${date}; its dates are ${event.dates.join(", ")}.`);
  }
  return { eventName: event.name };
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
    batch.add(
      completeKey(db, idempotency.claim, {
        resourceId: ticket.ticketId,
        body: idempotency.responseBody,
        written: ticketExists(ticket.ticketId),
      }),
    );
    held = batch.add(selectClaimHeld(db, idempotency.claim));
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
  const { eventName } = await checkSale(db, purchase, context.today);
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
        {
          ...purchase,
          ticketId,
          confirmationCode,
          generalPriceCents: context.generalPriceCents,
          soldBy: context.soldBy,
          museumNow: { today: context.today, time: context.timeNow },
        },
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
        const problem = await explainRefusal(db, purchase, { today: context.today, time: context.timeNow });
        if (problem) throw problem;
        if (attempt < WRITE_ATTEMPTS) continue;
        throw new ProblemError(409, {
          detail: "The places for this purchase changed while it was written; send it again.",
          headers: { "Retry-After": "0" },
        });
      }
      case "claim-lost":
        // This request stalled past the takeover; the request that took the
        // key over answers it (a retry gets its response).
        log.warn("idempotency claim taken over before the ticket was written", { soldBy: context.soldBy });
        throw stillInProgress();
    }
  }
}

/**
 * Sells one ticket: claims the Idempotency-Key (if any), checks the sale,
 * writes the ticket together with the key's response, and gives the key up
 * again when the sale fails. Round trips: 1 for a general ticket without a
 * key; +1 for an event ticket (its event is read), +1 for a key's claim.
 */
export async function sellTicket(db: Db, purchase: Purchase, context: SaleContext): Promise<Sale> {
  if (context.idempotencyKey === undefined) {
    return { response: await writeSale(db, purchase, context, undefined), replayed: false };
  }
  const scope = { accountName: context.soldBy, key: context.idempotencyKey };
  const claimed = await claimIdempotencyKey<BuyMuseumTicketsResponse>(
    db,
    scope,
    await sha256Hex(canonicalJson(purchase)),
    context.now,
  );
  switch (claimed.kind) {
    case "replay":
      return { response: claimed.response, replayed: true };
    case "in-progress":
      throw stillInProgress();
    case "mismatch":
      throw new ProblemError(422, { detail: "This Idempotency-Key was already used with a different request body." });
    case "claimed":
      break;
  }
  try {
    return { response: await writeSale(db, purchase, context, claimed.claim), replayed: false };
  } catch (error) {
    await releaseIdempotencyKey(db, claimed.claim);
    throw error;
  }
}
