/**
 * The code a ticket's QR carries: a compact JWS (RFC 7515) signed with
 * Ed25519 (RFC 8037), so a gate checks it offline with the published keys
 * (code-keys.ts) and any JOSE library reads it.
 *
 *   BASE64URL({"alg":"EdDSA","kid":"K2"}) . BASE64URL({"tid","typ","date","cat","eid"?,"ent"?}) . BASE64URL(signature)
 *
 * Nothing optional in the header and nothing of the buyer in the payload:
 * at most 350 characters, ASCII only (a version-13 QR at most).
 * Reading and verifying a code is the typed client's (museum-api-client/gate),
 * the same for the Worker and an offline gate; signing is here.
 * Codes printed before these (HMAC, legacy-token.ts) are still admitted online.
 */
import {
  base64url,
  invalidClaim,
  verifyTicketCodeWith,
  type TicketCodeClaimName,
  type TicketCodeClaims as VerifiedClaims,
} from "museum-api-client/gate";
import type { TicketType } from "../tickets/schemas";
import type { CodeKeySet } from "../configuration/code-keys";
import type { CodeSigner } from "./code-keys";

/** @internal (for tests) */
export { MAX_CODE_LENGTH } from "museum-api-client/gate";

/** What a code says: exactly what a gate needs to judge it. */
type TicketCodeClaims = Omit<VerifiedClaims, "kid">;

/** The ticket as signing needs it. */
export type TicketToSign = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: string;
  category: string;
  eventId?: string;
  entryTime?: string;
};

const encoder = new TextEncoder();

/** Why a ticket cannot be signed, by the claim that would not verify. */
const UNSIGNABLE: Record<TicketCodeClaimName, string> = {
  tid: "ticketId is not a UUID.",
  typ: "ticketType is neither general nor event.",
  date: "ticketDate is not a YYYY-MM-DD calendar date.",
  cat: "category is not a category id.",
  eid: "an event ticket needs its eventId.",
  ent: "entryTime is not the HH:mm of a general ticket.",
};

/** The claims of a ticket, in the order they are written. Throws on a ticket no code can name. */
function claimsOf(ticket: TicketToSign): TicketCodeClaims {
  const claims: TicketCodeClaims = { tid: ticket.ticketId.toLowerCase(), typ: ticket.ticketType, date: ticket.ticketDate, cat: ticket.category };
  if (ticket.ticketType === "event" && ticket.eventId !== undefined) claims.eid = ticket.eventId.toLowerCase();
  if (ticket.entryTime !== undefined) claims.ent = ticket.entryTime;
  const invalid = invalidClaim(claims);
  if (invalid !== null) throw new Error(`signTicketCode: ${UNSIGNABLE[invalid]}`);
  return claims;
}

/** Signs the ticket's code with `signer`. Ed25519 is deterministic: one ticket and key, one code. */
export async function signTicketCode(ticket: TicketToSign, signer: CodeSigner): Promise<string> {
  const header = base64url(encoder.encode(JSON.stringify({ alg: "EdDSA", kid: signer.kid })));
  const payload = base64url(encoder.encode(JSON.stringify(claimsOf(ticket))));
  const input = `${header}.${payload}`;
  const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", await signer.privateKey, encoder.encode(input)));
  return `${input}.${base64url(signature)}`;
}

/** True when the text has the shape of a compact JWS (three base64url segments), so it is judged as one. */
export function looksLikeTicketCode(code: string): boolean {
  return code.split(".").length === 3;
}

/**
 * The claims of a genuine code signed by a key of `keys`, or null for
 * anything else (never throws on input): another `alg` (`none`, `HS256`…),
 * an unknown `kid`, a header or payload with a member more or less, an
 * altered or truncated code.
 */
export function verifyTicketCode(code: string, keys: CodeKeySet): Promise<VerifiedClaims | null> {
  return verifyTicketCodeWith(code, (kid) => keys.verifiers.get(kid));
}
