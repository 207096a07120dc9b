/**
 * Subscription secrets and Standard Webhooks signatures, with WebCrypto only.
 *
 * - A secret is `whsec_` + base64 of 32 random bytes, shown once on create.
 * - At rest it is sealed with AES-256-GCM under the Worker secret
 *   WEBHOOK_SECRET_KEY (base64 of 32 bytes), the subscription's id as
 *   additional data (a sealed secret copied onto another row does not open).
 *   The row records the key's id (the first 8 bytes of its SHA-256, hex), so
 *   after a rotation (docs/webhooks.md) rows sealed under the previous key,
 *   WEBHOOK_SECRET_KEY_PREVIOUS, still open.
 * - `webhook-signature` is `v1,` + base64 HMAC-SHA256 of
 *   `{webhook-id}.{webhook-timestamp}.{body}` keyed with the secret's bytes.
 */
import type { SealingKeys } from "../configuration";
import { fromBase64, toBase64, toHex } from "../platform/crypto";

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;
const IV_BYTES = 12;
const encoder = new TextEncoder();

export type SealedSecret = { sealed: string; keyId: string };

export function generateSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

type SealingKey = { id: string; key: CryptoKey };

async function importSealingKey(base64: string): Promise<SealingKey> {
  const raw = fromBase64(base64.trim());
  if (raw.length !== 32) throw new Error("WEBHOOK_SECRET_KEY must be base64 of 32 bytes");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));
  const id = toHex(digest.slice(0, 8));
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
  return { id, key };
}

export async function sealSecret(keys: SealingKeys, webhookId: string, secret: string): Promise<SealedSecret> {
  const { id, key } = await importSealingKey(keys.WEBHOOK_SECRET_KEY);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(webhookId) }, key, encoder.encode(secret)),
  );
  return { sealed: `${toBase64(iv)}.${toBase64(sealed)}`, keyId: id };
}

export async function openSecret(keys: SealingKeys, webhookId: string, stored: SealedSecret): Promise<string> {
  const candidates = [keys.WEBHOOK_SECRET_KEY, keys.WEBHOOK_SECRET_KEY_PREVIOUS].filter((k): k is string => !!k);
  for (const candidate of candidates) {
    const { id, key } = await importSealingKey(candidate);
    if (id !== stored.keyId) continue;
    const [iv, data] = stored.sealed.split(".");
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(iv!), additionalData: encoder.encode(webhookId) },
      key,
      fromBase64(data!),
    );
    return new TextDecoder().decode(plain);
  }
  throw new Error(`no configured key has id ${stored.keyId} (WEBHOOK_SECRET_KEY rotated without WEBHOOK_SECRET_KEY_PREVIOUS?)`);
}

/** The `webhook-signature` header value for one message. */
export async function signatureHeader(secret: string, webhookId: string, timestamp: number, body: string): Promise<string> {
  const keyBytes = fromBase64(secret.slice(SECRET_PREFIX.length));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${webhookId}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}
