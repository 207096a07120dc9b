// The codes tests scan: what a ticket's image carries (Ed25519, the tests'
// signing key), signed here without drawing the image, and the earlier kind
// (HMAC, `MT1.…`) of tickets sold before the Ed25519 codes came in.
import { env } from "cloudflare:workers";
import { type CodeKeySet, configurationOf, need } from "../../src/configuration";
import { signingKeysFromEnv } from "../../src/configuration/signing-keys";
import { codeSignerAt, signTicketCode, signTicketToken, type TicketToSign } from "../../src/ticket-image";
import { runStep } from "../../src/platform/batch";
import { selectTicket } from "../../src/tickets/statements/rows";

/** The code keys of the tests' Worker (TICKET_CODE_KEYS of vitest.config.ts), as its configuration reads them. */
export function workerCodeKeys(): CodeKeySet {
  return need(configurationOf(env), "codeKeys").codeKeys;
}

/** The Ed25519 code of these facts, as an image signed now would carry it (a ticket this database may not hold). */
export function codeFor(ticket: TicketToSign): Promise<string> {
  return signTicketCode(ticket, codeSignerAt(workerCodeKeys(), new Date()));
}

/** The Ed25519 code the image of the stored ticket `ticketId` carries. */
export async function ticketCodeOf(ticketId: string): Promise<string> {
  const row = await runStep(selectTicket(env.DB, ticketId, null));
  if (!row) throw new Error(`ticketCodeOf: no ticket ${ticketId}`);
  return codeFor({
    ticketId,
    ticketType: row.ticket_type,
    ticketDate: row.ticket_date,
    category: row.category,
    ...(row.event_id === null ? {} : { eventId: row.event_id }),
    ...(row.entry_time === null ? {} : { entryTime: row.entry_time }),
  });
}

/** A code of the earlier kind (HMAC) naming the ticket, signed with the tests' TICKET_SIGNING_KEY. */
export function legacyCodeOf(ticket: { ticketId: string; ticketType: "general" | "event"; ticketDate: string }): Promise<string> {
  return signTicketToken(ticket, signingKeysFromEnv(env));
}
