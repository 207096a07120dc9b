// Idempotency-Keys (docs/contract.md): a key is claimed by one request, which
// writes its response in the batch of its own write, or gives the key up.
import { ProblemError } from "../http/problem";
import { Batch, type Db, type Handle, runStep } from "../platform/batch";
import type { Sql } from "sql-template-tag";
import { sha256Hex } from "../platform/crypto";
import * as statements from "./statements";
import type { IdempotencyClaimHeld, IdempotencyScope } from "./statements";

type IdempotencyClaim<Response> =
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
 * @internal (for tests)
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
  if (row.response_body === null || row.resource_id === null) return { kind: "in-progress" };
  // The body this service stored for the key's first response.
  return { kind: "replay", response: JSON.parse(row.response_body) as Response, resourceId: row.resource_id };
}

/** Gives up a claim whose request failed, so the client may retry with the key. */
async function releaseIdempotencyKey(db: Db, claim: IdempotencyClaimHeld): Promise<void> {
  await runStep(statements.releaseKey(db, claim));
}

/** Forgets expired keys (run by the Cron Trigger); returns how many. */
export function purgeExpiredIdempotencyKeys(db: Db, now: Date = new Date()): Promise<number> {
  return runStep(statements.purgeExpiredKeys(db, now.toISOString()));
}

/** Key-order-independent JSON, so the same request always hashes the same. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** The 409 of a request whose key's first request is still running. */
export function keyStillInProgress(): ProblemError {
  return new ProblemError(409, {
    detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
    headers: { "Retry-After": "1" },
  });
}

/** An operation run under an optional Idempotency-Key. */
export type KeyedOperation<Stored, Result> = {
  db: Db;
  /** The account, the operation and the key; none: the operation just runs. */
  scope: (Omit<IdempotencyScope, "key"> & { key: string | undefined });
  /** What makes two requests the same request (body, path parameters). */
  request: unknown;
  /** Runs the operation; with a claim, it writes the key's stored answer in its own batch (`completeKey`). */
  run: (claim: IdempotencyClaimHeld | undefined) => Promise<Result>;
  /** The answer again, from what the first request stored for the key. */
  replay: (stored: Stored, resourceId: string) => Promise<Result>;
  now?: Date;
};

/**
 * Runs an operation under its Idempotency-Key (docs/orders.md,
 * "Idempotency"): the first request claims the key and runs; a repeat of a
 * finished request gets its answer again (`replayed`); a repeat while the
 * first still runs is 409, another request under the same key 422. Only a
 * successful answer is kept: when the operation fails, the key is given up,
 * so the same request may be sent again and is judged again.
 */
export async function runKeyed<Stored, Result>(
  operation: KeyedOperation<Stored, Result>,
): Promise<{ result: Result; replayed: boolean }> {
  const { db, scope } = operation;
  if (scope.key === undefined) return { result: await operation.run(undefined), replayed: false };
  const claimed = await claimIdempotencyKey<Stored>(
    db,
    { ...scope, key: scope.key },
    await sha256Hex(canonicalJson(operation.request)),
    operation.now,
  );
  switch (claimed.kind) {
    case "replay":
      return { result: await operation.replay(claimed.response, claimed.resourceId), replayed: true };
    case "in-progress":
      throw keyStillInProgress();
    case "mismatch":
      throw new ProblemError(422, { detail: "This Idempotency-Key was already used for a different request." });
    case "claimed":
      break;
  }
  try {
    return { result: await operation.run(claimed.claim), replayed: false };
  } catch (error) {
    await releaseIdempotencyKey(db, claimed.claim);
    throw error;
  }
}

/**
 * Adds what a claimed key's request stores for its answer to the batch of
 * the write it answers: applied only while the claim holds and `written` (an
 * SQL condition: the write happened) holds. Reads whether the claim still
 * holds the key, to tell a write refused by its own rules from one refused
 * because another request took the key over.
 */
export function addKeyCompletion(
  batch: Batch,
  claim: IdempotencyClaimHeld,
  answer: { resourceId: string; body: string | Sql; written: Sql },
): Handle<boolean> {
  batch.add(statements.completeKey(batch.db, claim, answer));
  return batch.add(statements.selectClaimHeld(batch.db, claim));
}
