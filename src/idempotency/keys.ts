// Idempotency-Keys (docs/contract.md): a key is claimed by one request, which
// writes its response in the batch of its own write, or gives the key up.
import { Batch, type Db, runStep } from "../platform/batch";
import * as statements from "./statements";
import type { IdempotencyClaimHeld, IdempotencyScope } from "./statements";

export type IdempotencyClaim<Response> =
  /** This request owns the key now and must complete or release it. */
  | { kind: "claimed"; claim: IdempotencyClaimHeld }
  /** The key's first request finished: send its response again. */
  | { kind: "replay"; response: Response; resourceId: string }
  /** The key's first request is still running. */
  | { kind: "in-progress" }
  /** The key was used with a different request body. */
  | { kind: "mismatch" };

/** How long a finished key is remembered. */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A claim older than this with no response is taken as abandoned (its Worker died or stalled). */
const ABANDONED_CLAIM_MS = 60 * 1000;

/**
 * Claims `key` for this account and request in one round trip: the atomic
 * upsert (a new key, an expired one, or an abandoned claim becomes ours,
 * under a fresh random token) and a read of the row as it then stands.
 */
export async function claimIdempotencyKey<Response>(
  db: Db,
  scope: IdempotencyScope,
  requestSha256: string,
  now: Date = new Date(),
): Promise<IdempotencyClaim<Response>> {
  const claim = { ...scope, token: crypto.randomUUID() };
  const batch = new Batch(db);
  const claimed = batch.add(
    statements.claimKey(db, claim, requestSha256, {
      now: now.toISOString(),
      expiresAt: new Date(now.getTime() + KEY_LIFETIME_MS).toISOString(),
      abandonedBefore: new Date(now.getTime() - ABANDONED_CLAIM_MS).toISOString(),
    }),
  );
  const current = batch.add(statements.selectKey(db, scope));
  await batch.run();
  if (claimed.value) return { kind: "claimed", claim };
  const row = current.value!;
  if (row.request_sha256 !== requestSha256) return { kind: "mismatch" };
  if (row.response_body === null || row.ticket_id === null) return { kind: "in-progress" };
  // The body this service stored for the key's first response.
  return { kind: "replay", response: JSON.parse(row.response_body) as Response, resourceId: row.ticket_id };
}

/** Gives up a claim whose request failed, so the client may retry with the key. */
export async function releaseIdempotencyKey(db: Db, claim: IdempotencyClaimHeld): Promise<void> {
  await runStep(statements.releaseKey(db, claim));
}

/** Forgets expired keys (run by the Cron Trigger); returns how many. */
export function purgeExpiredIdempotencyKeys(db: Db, now: Date = new Date()): Promise<number> {
  return runStep(statements.purgeExpiredKeys(db, now.toISOString()));
}
