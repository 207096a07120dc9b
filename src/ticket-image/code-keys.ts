/**
 * Signing with the Ed25519 code keys (TICKET_CODE_KEYS, read by
 * configuration/code-keys.ts) and publishing them: the signer at a moment,
 * its private key imported once per isolate, and the JWK Set gates verify with.
 */
import { type CodeKey, type CodeKeySet, ED25519, signingKeyAt } from "../configuration/code-keys";
import { notConfigured } from "../http/problem";
import { log } from "../platform/log";

/** A key of the set, as published: an OKP JWK (RFC 8037). */
export type PublicCodeKey = { kty: "OKP"; crv: "Ed25519"; x: string; kid: string; alg: "EdDSA"; use: "sig" };

/** The key that signs at a moment: its id, its public half (what an ETag names) and its private key. */
export type CodeSigner = { kid: string; x: string; privateKey: Promise<CryptoKey> };

// Each signing key's private half, imported once per isolate.
const signers = new WeakMap<CodeKey, CodeSigner>();

/** The signer at `now`, its private key imported once per isolate; 503 when no key signs yet. */
export function codeSignerAt(keys: CodeKeySet, now: Date): CodeSigner {
  const key = signingKeyAt(keys, now);
  if (!key) {
    log.error("ticket code keys are not configured", { reason: "no key signs now" });
    throw notConfigured("Ticket codes cannot be signed right now.");
  }
  let signer = signers.get(key);
  if (!signer) {
    const privateKey = crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: key.x, d: key.d }, ED25519, false, ["sign"]);
    privateKey.catch(() => undefined);
    signer = { kid: key.kid, x: key.x, privateKey };
    signers.set(key, signer);
  }
  return signer;
}

/** The JWK Set a gate verifies codes with: every key of the set, public half only. */
export function publicKeySet(keys: CodeKeySet): { keys: PublicCodeKey[] } {
  return { keys: keys.keys.map(({ kid, x }) => ({ kty: "OKP", crv: "Ed25519", x, kid, alg: "EdDSA", use: "sig" })) };
}
