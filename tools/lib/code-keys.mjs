// The Ed25519 key set of ticket codes (TICKET_CODE_KEYS, src/ticket-image/code-keys.ts):
// making a key, reading and checking a set, and its public JWK Set. Node's
// crypto only; used by `npm run code-key` and the tests.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";

/** How long a new key is published before it signs (docs/admission.md). */
export const PUBLISH_AHEAD_MS = 48 * 3600_000;
const KID = /^[0-9A-Za-z_-]{1,8}$/;

/** A new key: `{ kid, kty, crv, x, d, signsFrom }`. */
export function generateCodeKey(kid, signsFrom) {
  if (!KID.test(kid)) throw new Error(`kid ${JSON.stringify(kid)}: 1–8 of A-Z a-z 0-9 _ -`);
  const { privateKey } = generateKeyPairSync("ed25519");
  const { x, d } = privateKey.export({ format: "jwk" });
  return { kid, kty: "OKP", crv: "Ed25519", x, d, signsFrom: new Date(signsFrom).toISOString().replace(/\.000Z$/, "Z") };
}

/** Parses a key set's JSON (`{"keys":[…]}`); throws a readable Error. */
export function parseKeySet(text) {
  let set;
  try {
    set = JSON.parse(text);
  } catch {
    throw new Error('not JSON: a key set is {"keys":[…]}');
  }
  if (!Array.isArray(set?.keys)) throw new Error('not a key set: {"keys":[…]} expected');
  return set;
}

/** The key that signs at `now`: the latest signsFrom not after it among the keys with `d`. */
export function signerAt(set, now) {
  return (
    set.keys
      .filter((key) => typeof key.d === "string" && Date.parse(key.signsFrom) <= now)
      .sort((a, b) => Date.parse(b.signsFrom) - Date.parse(a.signsFrom))[0] ?? null
  );
}

/**
 * What is wrong with a key set at `now` (an empty list when nothing is):
 * shape, duplicate ids, a private part that does not belong to its public
 * one, no key signing now, a new key that signs less than 48 hours after now
 * (gates that synced before would refuse its codes until they sync again).
 */
export function keySetProblems(set, now = Date.now()) {
  const problems = [];
  const seen = new Set();
  set.keys.forEach((key, index) => {
    const where = `key ${index + 1}${typeof key?.kid === "string" ? ` (${key.kid})` : ""}`;
    if (key?.kty !== "OKP" || key?.crv !== "Ed25519") problems.push(`${where}: kty must be "OKP" and crv "Ed25519"`);
    if (typeof key?.kid !== "string" || !KID.test(key.kid)) problems.push(`${where}: kid must be 1–8 of A-Z a-z 0-9 _ -`);
    else if (seen.has(key.kid)) problems.push(`${where}: kid used twice`);
    else seen.add(key.kid);
    if (!Number.isFinite(Date.parse(key?.signsFrom))) problems.push(`${where}: signsFrom must be an RFC 3339 time`);
    try {
      const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.x }, format: "jwk" });
      if (key.d !== undefined) {
        const privateKey = createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x: key.x, d: key.d }, format: "jwk" });
        const probe = Buffer.from("museum-api code key probe");
        if (!verify(null, probe, publicKey, sign(null, probe, privateKey))) problems.push(`${where}: d does not belong to x`);
      }
    } catch {
      problems.push(`${where}: x or d is not an Ed25519 key`);
    }
  });
  if (problems.length > 0) return problems;
  if (!signerAt(set, now)) problems.push("no key with d has a signsFrom that has come: nothing signs now");
  return problems;
}

/** Keys that sign from less than 48 hours after `now` (a gate that synced yesterday does not know them). */
export function keysPublishedLate(set, now = Date.now()) {
  return set.keys.filter((key) => {
    const from = Date.parse(key.signsFrom);
    return from > now && from - now < PUBLISH_AHEAD_MS;
  });
}

/** The JWK Set `GET /gate/keys` answers for this key set. */
export function publicKeySet(set) {
  return { keys: set.keys.map(({ kid, x }) => ({ kty: "OKP", crv: "Ed25519", x, kid, alg: "EdDSA", use: "sig" })) };
}
