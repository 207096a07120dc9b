/**
 * The code a ticket's QR carries: a compact JWS (RFC 7515) signed with
 * Ed25519 (RFC 8037), so a gate checks it offline with the published keys
 * (code-keys.ts) and any JOSE library reads it.
 *
 *   BASE64URL({"alg":"EdDSA","kid":"K2"}) . BASE64URL({"tid","typ","date","cat","eid"?,"ent"?}) . BASE64URL(signature)
 *
 * Nothing optional in the header and nothing of the buyer in the payload:
 * at most 350 characters, ASCII only (a version-13 QR at most).
 * Codes printed before these (HMAC, legacy-token.ts) are still admitted online.
 */
import type { TicketType } from "../tickets/schemas";
import type { CodeKeySet, CodeSigner } from "./code-keys";

/** What a code says: exactly what a gate needs to judge it. */
export type TicketCodeClaims = {
  tid: string;
  typ: TicketType;
  date: string;
  cat: string;
  /** Event tickets. */
  eid?: string;
  /** Timed (general) tickets. */
  ent?: string;
};

/** The ticket as signing needs it. */
export type TicketToSign = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: string;
  category: string;
  eventId?: string;
  entryTime?: string;
};

/** The longest code this service signs is 337 characters (an event ticket, an 8-character kid, a 20-character category). */
export const MAX_CODE_LENGTH = 350;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const CATEGORY = /^[a-z0-9-]{1,20}$/;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** Header `alg` values that name EdDSA over Ed25519 (RFC 8037; `Ed25519`: RFC 9864). */
const ED25519_ALGS = new Set(["EdDSA", "Ed25519"]);
const SIGNATURE_BYTES = 64;

const encoder = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of canonical unpadded base64url text, or null (another spelling of the same bytes is not this code). */
function fromBase64url(text: string): Uint8Array | null {
  if (!SEGMENT.test(text) || text.length % 4 === 1) return null;
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return base64url(bytes) === text ? bytes : null;
}

function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The claims of a ticket, in the order they are written. Throws on a ticket no code can name. */
function claimsOf(ticket: TicketToSign): TicketCodeClaims {
  const tid = ticket.ticketId.toLowerCase();
  if (!UUID.test(tid)) throw new Error("signTicketCode: ticketId is not a UUID.");
  if (ticket.ticketType !== "general" && ticket.ticketType !== "event") throw new Error("signTicketCode: ticketType is neither general nor event.");
  if (!isCalendarDate(ticket.ticketDate)) throw new Error("signTicketCode: ticketDate is not a YYYY-MM-DD calendar date.");
  if (!CATEGORY.test(ticket.category)) throw new Error("signTicketCode: category is not a category id.");
  const claims: TicketCodeClaims = { tid, typ: ticket.ticketType, date: ticket.ticketDate, cat: ticket.category };
  if (ticket.ticketType === "event") {
    const eid = ticket.eventId?.toLowerCase();
    if (eid === undefined || !UUID.test(eid)) throw new Error("signTicketCode: an event ticket needs its eventId.");
    claims.eid = eid;
  }
  if (ticket.entryTime !== undefined) {
    if (ticket.ticketType !== "general" || !TIME.test(ticket.entryTime)) throw new Error("signTicketCode: entryTime is not the HH:mm of a general ticket.");
    claims.ent = ticket.entryTime;
  }
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

/** A JSON object with exactly the members `required` and no others than those and `optional`, or null. */
function strictObject(bytes: Uint8Array, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const members = Object.keys(value);
  if (!required.every((name) => members.includes(name))) return null;
  if (!members.every((name) => required.includes(name) || optional.includes(name))) return null;
  return value as Record<string, unknown>;
}

/** The claims, when they are exactly what this service signs. */
function claimsIn(payload: Record<string, unknown>): TicketCodeClaims | null {
  const { tid, typ, date, cat, eid, ent } = payload;
  if (typeof tid !== "string" || !UUID.test(tid)) return null;
  if (typ !== "general" && typ !== "event") return null;
  if (typeof date !== "string" || !isCalendarDate(date)) return null;
  if (typeof cat !== "string" || !CATEGORY.test(cat)) return null;
  if ((typ === "event") !== (eid !== undefined)) return null;
  if (eid !== undefined && (typeof eid !== "string" || !UUID.test(eid))) return null;
  if (ent !== undefined && (typeof ent !== "string" || !TIME.test(ent) || typ !== "general")) return null;
  return {
    tid,
    typ,
    date,
    cat,
    ...(eid === undefined ? {} : { eid: eid as string }),
    ...(ent === undefined ? {} : { ent: ent as string }),
  };
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
export async function verifyTicketCode(code: string, keys: CodeKeySet): Promise<(TicketCodeClaims & { kid: string }) | null> {
  if (typeof code !== "string" || code.length > MAX_CODE_LENGTH) return null;
  const segments = code.split(".");
  if (segments.length !== 3) return null;
  const [headerText, payloadText, signatureText] = segments as [string, string, string];
  const headerBytes = fromBase64url(headerText);
  const payloadBytes = fromBase64url(payloadText);
  const signature = fromBase64url(signatureText);
  if (!headerBytes || !payloadBytes || !signature || signature.byteLength !== SIGNATURE_BYTES) return null;
  const header = strictObject(headerBytes, ["alg", "kid"]);
  if (!header || typeof header.alg !== "string" || !ED25519_ALGS.has(header.alg) || typeof header.kid !== "string") return null;
  const verifier = keys.verifiers.get(header.kid);
  if (!verifier) return null;
  const payload = strictObject(payloadBytes, ["tid", "typ", "date", "cat"], ["eid", "ent"]);
  const claims = payload && claimsIn(payload);
  if (!claims) return null;
  let genuine: boolean;
  try {
    genuine = await crypto.subtle.verify("Ed25519", await verifier, signature, encoder.encode(`${headerText}.${payloadText}`));
  } catch {
    return null;
  }
  return genuine ? { ...claims, kid: header.kid } : null;
}
