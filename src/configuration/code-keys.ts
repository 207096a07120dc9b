/**
 * TICKET_CODE_KEYS, the Ed25519 keys of ticket codes (docs/admission.md,
 * "Keys"): a JSON key set
 *
 *   {"keys":[{"kid":"K2","kty":"OKP","crv":"Ed25519","x":"…","d":"…","signsFrom":"2026-12-01T00:00:00Z"}, …]}
 *
 * Every key is published (GET /gate/keys) and verifies codes; the one that
 * signs is the key with the latest `signsFrom` not after now, so a new key is
 * published ahead (48 hours at least) and takes over by itself. A key kept
 * only to verify may leave out its private `d`. Withdrawing a key is taking
 * it out of the set. `npm run code-key` makes a key. Signing and verifying
 * are ticket-image's (code-keys.ts, token.ts).
 */

/** A key of the set as read: its public half `x`, its private half `d` when it may sign, and when it signs from (ms). */
export type CodeKey = { kid: string; x: string; d?: string; signsFrom: number };

export type CodeKeySet = {
  keys: readonly CodeKey[];
  /** The verification keys by kid, imported once per isolate. */
  verifiers: ReadonlyMap<string, Promise<CryptoKey>>;
};

/** Key ids: short (the header says at most 8 characters) and URL-safe. */
const KID_PATTERN = /^[0-9A-Za-z_-]{1,8}$/;
/** 32 bytes, base64url without padding (the last character carries 2 bits, 4 left zero). */
const KEY_BYTES_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
export const ED25519 = { name: "Ed25519" } as const;

/**
 * Reads TICKET_CODE_KEYS. Throws an Error naming the variable and the key's
 * position (never a key's value) when something is wrong.
 */
export function codeKeysFromEnv(env: { TICKET_CODE_KEYS?: string | undefined }): CodeKeySet {
  const text = env.TICKET_CODE_KEYS?.trim();
  if (!text) {
    throw new Error(
      "TICKET_CODE_KEYS is not set: ticket codes cannot be signed. " +
        "Make a key set with `npm run code-key` and store it with `wrangler secret put TICKET_CODE_KEYS` (locally in .dev.vars, see .dev.vars.example).",
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('TICKET_CODE_KEYS is not JSON: it is {"keys":[…]}, as `npm run code-key` prints it.');
  }
  const list = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list) || list.length === 0) throw new Error("TICKET_CODE_KEYS has no keys: it is {\"keys\":[…]} with at least one.");
  const keys = list.map((entry: unknown, index) => codeKeyOf(entry, `TICKET_CODE_KEYS key ${index + 1}`));
  const kids = new Set(keys.map((key) => key.kid));
  if (kids.size !== keys.length) throw new Error("TICKET_CODE_KEYS: a kid is used twice; every key needs its own id.");
  if (!keys.some((key) => key.d !== undefined)) throw new Error("TICKET_CODE_KEYS: no key has its private part `d`, so none can sign.");
  return { keys, verifiers: new Map(keys.map((key) => [key.kid, importPublic(key)])) };
}

function codeKeyOf(entry: unknown, where: string): CodeKey {
  if (typeof entry !== "object" || entry === null) throw new Error(`${where} is not an object.`);
  const { kid, kty, crv, x, d, signsFrom } = entry as Record<string, unknown>;
  if (kty !== "OKP" || crv !== "Ed25519") throw new Error(`${where}: kty must be "OKP" and crv "Ed25519".`);
  if (typeof kid !== "string" || !KID_PATTERN.test(kid)) throw new Error(`${where}: kid must be 1–8 of A-Z a-z 0-9 _ -.`);
  if (typeof x !== "string" || !KEY_BYTES_PATTERN.test(x)) throw new Error(`${where} (${kid}): x is not a 32-byte base64url value.`);
  if (d !== undefined && (typeof d !== "string" || !KEY_BYTES_PATTERN.test(d))) {
    throw new Error(`${where} (${kid}): d is not a 32-byte base64url value.`);
  }
  const from = typeof signsFrom === "string" ? Date.parse(signsFrom) : NaN;
  if (!Number.isFinite(from)) throw new Error(`${where} (${kid}): signsFrom must be an RFC 3339 time.`);
  return d === undefined ? { kid, x, signsFrom: from } : { kid, x, d, signsFrom: from };
}

function importPublic(key: CodeKey): Promise<CryptoKey> {
  const imported = crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: key.x }, ED25519, false, ["verify"]);
  // A key that does not import verifies nothing; the rejection is handled where it is awaited.
  imported.catch(() => undefined);
  return imported;
}

/** The key that signs at `now`: the latest `signsFrom` not after it among the keys with `d`; null when none does yet. */
export function signingKeyAt(keys: CodeKeySet, now: Date): CodeKey | null {
  let signer: CodeKey | null = null;
  for (const key of keys.keys) {
    if (key.d === undefined || key.signsFrom > now.getTime()) continue;
    if (signer === null || key.signsFrom > signer.signsFrom) signer = key;
  }
  return signer;
}
