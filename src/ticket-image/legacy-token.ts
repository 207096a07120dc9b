/**
 * The HMAC token ticket QR codes carried before the Ed25519 codes (token.ts):
 * codes printed then are still admitted online, so it is verified, and signed
 * only by tests and tools that stand for such a code.
 *
 *   MT1.<KID>.<T><YYYYMMDD>.<ID>.<SIG>
 *
 * - `MT1`   format and version ("Museum Ticket", version 1).
 * - `KID`   id of the signing key, 1–8 of `0-9 A-Z` (rotation: see docs/ticket-image.md).
 * - `T`     ticket type: `G` general entry, `E` special event.
 * - `YYYYMMDD` the ticket date.
 * - `ID`    the 16 bytes of the ticketId (a UUID), RFC 4648 base32, no padding: 26 characters.
 * - `SIG`   HMAC-SHA256 over everything before the last `.`, truncated to its first
 *           128 bits, base32 without padding: 26 characters.
 *
 * Every character is in the QR alphanumeric set (`0-9 A-Z . `), the token is
 * 69–76 characters, and it names the ticket only: never e-mail, phone or name.
 */
import { SIGNING_KEY_ID_PATTERN, type SigningKeys } from "../configuration/signing-keys";
import { toHex } from "../platform/crypto";
import type { TicketType } from "../tickets/schemas";

export type VerifiedTicketToken = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: string;
  keyId: string;
};

const TOKEN_VERSION = "MT1";
/**
 * The longest well-formed token (an 8-character key id).
 * @internal (for tests)
 */
export const MAX_TOKEN_LENGTH = TOKEN_VERSION.length + 1 + 8 + 1 + 9 + 1 + 26 + 1 + 26;

const SIG_BYTES = 16;
const TOKEN_PATTERN = /^MT1\.([0-9A-Z]{1,8})\.([GE])(\d{8})\.([A-Z2-7]{26})\.([A-Z2-7]{26})$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

const encoder = new TextEncoder();

// ---------------------------------------------------------------------------
// Keys

// One imported CryptoKey per secret, per isolate.
const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    key.catch(() => keyCache.delete(secret));
    keyCache.set(secret, key);
  }
  return key;
}

async function mac(secret: string, message: string): Promise<Uint8Array> {
  const full = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message));
  return new Uint8Array(full).slice(0, SIG_BYTES);
}

/** Constant-time equality of two byte strings of the same (public) length. */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  // Workers' own constant-time comparison; a branch-free loop elsewhere (Node scripts).
  const subtle = crypto.subtle as SubtleCrypto & { timingSafeEqual?: (x: ArrayBufferView, y: ArrayBufferView) => boolean };
  if (typeof subtle.timingSafeEqual === "function") return subtle.timingSafeEqual(a, b);
  let diff = 0;
  for (let i = 0; i < a.byteLength; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

// ---------------------------------------------------------------------------
// Encoding

/**
 * RFC 4648 base32, upper case, no padding.
 * @internal (for tests)
 */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Decodes unpadded upper-case base32 to exactly `length` bytes; null unless the
 * text is the canonical encoding (right length, unused trailing bits zero).
 * @internal (for tests)
 */
export function base32Decode(text: string, length: number): Uint8Array | null {
  if (text.length !== Math.ceil((length * 8) / 5)) return null;
  const out = new Uint8Array(length);
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const ch of text) {
    const value = BASE32.indexOf(ch);
    if (value < 0) return null;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (buffer >>> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  return buffer === 0 ? out : null;
}

function uuidToBytes(uuid: string): Uint8Array {
  const hex = uuid.replaceAll("-", "");
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function bytesToUuid(bytes: Uint8Array): string {
  const hex = toHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** True for a real calendar date YYYY-MM-DD (no time zone involved). */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

// ---------------------------------------------------------------------------
// Sign and verify

/** Signs a token for the ticket with the current key. Throws on a malformed ticket. @internal (for tests) */
export async function signTicketToken(
  ticket: { ticketId: string; ticketType: TicketType; ticketDate: string },
  keys: SigningKeys,
): Promise<string> {
  if (!UUID_PATTERN.test(ticket.ticketId)) throw new Error("signTicketToken: ticketId is not a UUID.");
  if (ticket.ticketType !== "general" && ticket.ticketType !== "event") {
    throw new Error("signTicketToken: ticketType is neither general nor event.");
  }
  const date = DATE_PATTERN.exec(ticket.ticketDate);
  if (!date || !isCalendarDate(Number(date[1]), Number(date[2]), Number(date[3]))) {
    throw new Error("signTicketToken: ticketDate is not a YYYY-MM-DD calendar date.");
  }
  const { id, secret } = keys.current;
  if (!SIGNING_KEY_ID_PATTERN.test(id)) throw new Error("signTicketToken: the key id must be 1–8 of 0-9 A-Z.");

  const type = ticket.ticketType === "general" ? "G" : "E";
  const body = `${TOKEN_VERSION}.${id}.${type}${date[1]}${date[2]}${date[3]}.${base32Encode(uuidToBytes(ticket.ticketId))}`;
  return `${body}.${base32Encode(await mac(secret, body))}`;
}

/**
 * Verifies a token against the current and previous keys. Returns what it names,
 * or null for anything not signed by one of those keys (never throws on input).
 */
export async function verifyTicketToken(token: string, keys: SigningKeys): Promise<VerifiedTicketToken | null> {
  if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH) return null;
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return null;
  const [, keyId, type, yyyymmdd, id32, sig32] = match as unknown as [string, string, "G" | "E", string, string, string];

  const key = [keys.current, ...(keys.previous ?? [])].find((k) => k.id === keyId);
  if (!key) return null;
  const idBytes = base32Decode(id32, 16);
  const signature = base32Decode(sig32, SIG_BYTES);
  if (!idBytes || !signature) return null;

  const body = token.slice(0, token.lastIndexOf("."));
  if (!timingSafeEqual(await mac(key.secret, body), signature)) return null;

  const year = Number(yyyymmdd.slice(0, 4));
  const month = Number(yyyymmdd.slice(4, 6));
  const day = Number(yyyymmdd.slice(6, 8));
  if (!isCalendarDate(year, month, day)) return null;
  return {
    ticketId: bytesToUuid(idBytes),
    ticketType: type === "G" ? "general" : "event",
    ticketDate: `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`,
    keyId,
  };
}
