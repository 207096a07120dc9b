/**
 * The HMAC keys of the ticket codes printed before the Ed25519 ones
 * (ticket-image/legacy-token.ts): they still verify such codes at the gate.
 *
 * - `TICKET_SIGNING_KEY` (secret, required): at least 32 characters.
 * - `TICKET_SIGNING_KEY_ID` (optional, default `K1`): 1–8 of `0-9 A-Z`.
 * - `TICKET_SIGNING_KEYS_PREVIOUS` (secret, optional): keys that still verify but
 *   no longer sign, as `KID:secret` pairs separated by commas, e.g. `K0:…,KA:…`.
 */

type SigningKey = { id: string; secret: string };
export type SigningKeys = { current: SigningKey; previous?: SigningKey[] };

/** Key ids: short, and inside the QR alphanumeric set. */
export const SIGNING_KEY_ID_PATTERN = /^[0-9A-Z]{1,8}$/;
/** Secrets shorter than this are refused (32 characters: at least 128 bits even as hex). */
const MIN_SECRET_LENGTH = 32;
/** Key id used when TICKET_SIGNING_KEY_ID is not set. */
const DEFAULT_KEY_ID = "K1";

type KeyEnv = {
  TICKET_SIGNING_KEY?: string | undefined;
  TICKET_SIGNING_KEY_ID?: string | undefined;
  TICKET_SIGNING_KEYS_PREVIOUS?: string | undefined;
};

/** Reads the signing keys. Throws an Error naming the variable (never its value) when something is wrong. */
export function signingKeysFromEnv(env: KeyEnv): SigningKeys {
  const secret = env.TICKET_SIGNING_KEY?.trim();
  if (!secret) {
    throw new Error(
      "TICKET_SIGNING_KEY is not set: ticket QR codes cannot be signed. " +
        "Set it with `wrangler secret put TICKET_SIGNING_KEY` (locally in .dev.vars, see .dev.vars.example).",
    );
  }
  checkSecret("TICKET_SIGNING_KEY", secret);
  const id = env.TICKET_SIGNING_KEY_ID?.trim() || DEFAULT_KEY_ID;
  checkKeyId("TICKET_SIGNING_KEY_ID", id);

  const previous: SigningKey[] = [];
  const list = env.TICKET_SIGNING_KEYS_PREVIOUS?.trim();
  if (list) {
    for (const [index, entry] of list.split(",").entries()) {
      const item = entry.trim();
      if (item === "") continue;
      const colon = item.indexOf(":");
      const where = `TICKET_SIGNING_KEYS_PREVIOUS entry ${index + 1}`;
      if (colon < 0) throw new Error(`${where} is not of the form KID:secret.`);
      const prevId = item.slice(0, colon).trim();
      const prevSecret = item.slice(colon + 1).trim();
      checkKeyId(where, prevId);
      checkSecret(where, prevSecret);
      if (prevId === id || previous.some((k) => k.id === prevId)) {
        throw new Error(`${where}: key id ${prevId} is used twice; every key needs its own id.`);
      }
      previous.push({ id: prevId, secret: prevSecret });
    }
  }
  return previous.length > 0 ? { current: { id, secret }, previous } : { current: { id, secret } };
}

function checkKeyId(where: string, id: string): void {
  if (!SIGNING_KEY_ID_PATTERN.test(id)) {
    throw new Error(`${where}: the key id must be 1–8 characters of 0-9 and A-Z (upper case).`);
  }
}

function checkSecret(where: string, secret: string): void {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`${where}: the secret is shorter than ${MIN_SECRET_LENGTH} characters.`);
  }
}
