// The reference verifier of ticket codes for an offline gate: judges a
// scanned code as `POST /admissions` would, from what the gate synced
// (GET /gate/keys, GET /gate/config, GET /gate/revocations). WebCrypto only
// (Ed25519): browsers, Node 20+, workerd. It cannot know a ticket admitted at
// another gate: that is the upload's answer (`POST /admissions/offline`).
// The Worker reads codes (src/ticket-image/token.ts) and the museum's clock
// (src/platform/dates.ts) with this module too, so a gate and the service
// cannot disagree on what a genuine code is or what time it is. The day's
// rules exist twice, as the service's SQL and `checkTicketCode` here:
// test/admission/gate-rules.test.ts holds the two together.

/** The longest code a gate reads: the service signs 337 characters at most (an event ticket, an 8-character kid, a 20-character category). */
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
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Unpadded base64url (RFC 4648 §5): how each part of a code is written. */
export function base64url(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of canonical unpadded base64url text, or null (another spelling of the same bytes is not this code). */
function fromBase64url(text) {
  if (!SEGMENT.test(text) || text.length % 4 === 1) return null;
  let binary;
  try {
    binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return base64url(bytes) === text ? bytes : null;
}

/** A JSON object with exactly the members `required` and no others than those and `optional`, or null. */
function strictObject(bytes, required, optional = []) {
  let value;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const members = Object.keys(value);
  if (!required.every((name) => members.includes(name))) return null;
  if (!members.every((name) => required.includes(name) || optional.includes(name))) return null;
  return value;
}

function isCalendarDate(text) {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The first claim (in the order they are written) that is not as the service writes it, or null when all are. */
export function invalidClaim({ tid, typ, date, cat, eid, ent }) {
  if (typeof tid !== "string" || !UUID.test(tid)) return "tid";
  if (typ !== "general" && typ !== "event") return "typ";
  if (typeof date !== "string" || !isCalendarDate(date)) return "date";
  if (typeof cat !== "string" || !CATEGORY.test(cat)) return "cat";
  if ((typ === "event") !== (eid !== undefined)) return "eid";
  if (eid !== undefined && (typeof eid !== "string" || !UUID.test(eid))) return "eid";
  if (ent !== undefined && (typeof ent !== "string" || !TIME.test(ent) || typ !== "general")) return "ent";
  return null;
}

/**
 * The claims and `kid` of a genuine code, its key found by `verifierOf(kid)`
 * (a verifying CryptoKey, a promise of one, or undefined for an unknown kid);
 * null for anything else, never throwing on input: another `alg` (`none`,
 * `HS256`…), an unknown `kid`, a header or payload with a member more or
 * less, an altered or truncated code.
 */
export async function verifyTicketCodeWith(code, verifierOf) {
  if (typeof code !== "string" || code.length > MAX_CODE_LENGTH) return null;
  const segments = code.split(".");
  if (segments.length !== 3) return null;
  const [headerText, payloadText, signatureText] = segments;
  const headerBytes = fromBase64url(headerText);
  const payloadBytes = fromBase64url(payloadText);
  const signature = fromBase64url(signatureText);
  if (!headerBytes || !payloadBytes || !signature || signature.byteLength !== SIGNATURE_BYTES) return null;
  const header = strictObject(headerBytes, ["alg", "kid"]);
  if (!header || typeof header.alg !== "string" || !ED25519_ALGS.has(header.alg) || typeof header.kid !== "string") return null;
  const verifier = verifierOf(header.kid);
  if (!verifier) return null;
  const payload = strictObject(payloadBytes, ["tid", "typ", "date", "cat"], ["eid", "ent"]);
  if (!payload || invalidClaim(payload) !== null) return null;
  const { tid, typ, date, cat, eid, ent } = payload;
  try {
    const genuine = await crypto.subtle.verify("Ed25519", await verifier, signature, encoder.encode(`${headerText}.${payloadText}`));
    if (!genuine) return null;
  } catch {
    return null;
  }
  return { tid, typ, date, cat, ...(eid === undefined ? {} : { eid }), ...(ent === undefined ? {} : { ent }), kid: header.kid };
}

// The imported public keys of each key set object, by kid.
const imported = new WeakMap();

function importedKey(keySet, kid) {
  let byKid = imported.get(keySet);
  if (!byKid) {
    byKid = new Map();
    for (const key of Array.isArray(keySet?.keys) ? keySet.keys : []) {
      if (key?.kty !== "OKP" || key?.crv !== "Ed25519" || typeof key.kid !== "string" || typeof key.x !== "string") continue;
      if (key.use !== undefined && key.use !== "sig") continue;
      const cryptoKey = crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: key.x }, { name: "Ed25519" }, false, ["verify"]);
      cryptoKey.catch(() => undefined);
      byKid.set(key.kid, cryptoKey);
    }
    imported.set(keySet, byKid);
  }
  return byKid.get(kid);
}

/** The claims of a genuine code signed by a key of `keySet` (a JWK Set), or null. */
export function verifyTicketCode(code, keySet) {
  return verifyTicketCodeWith(code, (kid) => importedKey(keySet, kid));
}

// A clock's format by time zone: made once, as making one costs far more than using it.
const clocks = new Map();

/**
 * The date (`YYYY-MM-DD`) and time (`HH:mm`) of `now` in `timeZone`: the
 * museum's clock, the service's too (src/platform/dates.ts reads it here).
 */
export function museumNow(timeZone, now) {
  let clock = clocks.get(timeZone);
  if (!clock) {
    clock = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    clocks.set(timeZone, clock);
  }
  const parts = Object.fromEntries(clock.formatToParts(now).map((part) => [part.type, part.value]));
  return { today: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

const minutesOf = (time) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * Judges a scanned code at `now` as the service would, checking in its order
 * (not genuine, revoked, not today, too late, too early):
 * `{ outcome: "admitted" | "not-valid-today" | "too-early" | "too-late" | "revoked" | "invalid-ticket-code", … }`
 * with the claims (`ticketId`, `ticketType`, `ticketDate`, `category`,
 * `eventId`, `entryTime`) of a genuine code, and `timeClose` when too late.
 * Too early applies only on a day with timed entry (`entrySlots` in the
 * config): with timed entry turned off, a timed ticket is admitted all day.
 * `revoked`: the ticket ids of the revocation feed (a Set or any iterable).
 */
export async function checkTicketCode({ code, keys, config, revoked = [], now = new Date() }) {
  const claims = await verifyTicketCode(code, keys);
  if (!claims) return { outcome: "invalid-ticket-code" };
  const ticket = {
    ticketId: claims.tid,
    ticketType: claims.typ,
    ticketDate: claims.date,
    category: claims.cat,
    ...(claims.eid === undefined ? {} : { eventId: claims.eid }),
    ...(claims.ent === undefined ? {} : { entryTime: claims.ent }),
  };
  const revokedIds = revoked instanceof Set ? revoked : new Set(revoked);
  if (revokedIds.has(ticket.ticketId)) return { outcome: "revoked", ...ticket };
  const { today, time } = museumNow(config.timeZone, now);
  if (ticket.ticketDate !== today) return { outcome: "not-valid-today", ...ticket };
  if (ticket.ticketType === "general") {
    const day = config.days.find((d) => d.date === today);
    if (day && time >= day.timeClose) return { outcome: "too-late", ...ticket, timeClose: day.timeClose };
    const timedEntry = day?.entrySlots !== undefined;
    if (timedEntry && ticket.entryTime !== undefined && minutesOf(time) + config.admissionEarlyMinutes < minutesOf(ticket.entryTime)) {
      return { outcome: "too-early", ...ticket };
    }
  }
  return { outcome: "admitted", ...ticket };
}
