// The idempotency feature's table (idempotency_keys): every statement on it,
// and the fragment a guarded write puts in its own statement.
import sql, { type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";

/** What an Idempotency-Key belongs to: an account and an operation (`buyMuseumTickets`, `cancelTicket`). */
export type IdempotencyScope = { accountName: string; operation: string; key: string };

/** A key claimed by one request: only the holder of `token` may write under it. */
export type IdempotencyClaimHeld = IdempotencyScope & { token: string };

/** The key's row as the claim finds it. */
export type KeyRow = { request_sha256: string; response_body: string | null; resource_id: string | null };

/**
 * Claims the key in one atomic upsert: a new key, an expired one (`expires_at`
 * ≤ `now`), or an abandoned claim (no response, created ≤ `abandonedBefore`)
 * becomes `claim`'s; reads whether it did.
 */
export function claimKey(
  db: Db,
  claim: IdempotencyClaimHeld,
  requestSha256: string,
  times: { now: string; expiresAt: string; abandonedBefore: string },
): Step<boolean> {
  return step(
    db,
    sql`INSERT INTO idempotency_keys (account_name, operation, idempotency_key, request_sha256, claim_token, created_at, expires_at)
        VALUES (${claim.accountName}, ${claim.operation}, ${claim.key}, ${requestSha256}, ${claim.token}, ${times.now}, ${times.expiresAt})
        ON CONFLICT (account_name, operation, idempotency_key) DO UPDATE
           SET request_sha256 = excluded.request_sha256, claim_token = excluded.claim_token,
               response_body = NULL, resource_id = NULL,
               created_at = excluded.created_at, expires_at = excluded.expires_at
         WHERE idempotency_keys.expires_at <= ${times.now}
            OR (idempotency_keys.response_body IS NULL AND idempotency_keys.created_at <= ${times.abandonedBefore})
        RETURNING 1 AS claimed`,
    (result) => read.rows()(result).length > 0,
  );
}

/** The key's row. */
export function selectKey(db: Db, scope: IdempotencyScope): Step<KeyRow | null> {
  return step(
    db,
    sql`SELECT request_sha256, response_body, resource_id FROM idempotency_keys
         WHERE account_name = ${scope.accountName} AND operation = ${scope.operation} AND idempotency_key = ${scope.key}`,
    read.first<KeyRow>(),
  );
}

/** True while `claim` still holds its key with no response: a guard for the write it makes. */
export function claimHeld(claim: IdempotencyClaimHeld): Sql {
  return sql`EXISTS (SELECT 1 FROM idempotency_keys
     WHERE account_name = ${claim.accountName} AND operation = ${claim.operation} AND idempotency_key = ${claim.key}
       AND claim_token = ${claim.token} AND response_body IS NULL)`;
}

/**
 * Records the response of a claimed key. It belongs in the batch of the write
 * it describes, and applies only while the claim is this request's and
 * `written` (an SQL condition: the write happened) holds.
 */
export function completeKey(
  db: Db,
  claim: IdempotencyClaimHeld,
  response: { resourceId: string; body: string | Sql; written: Sql },
): Step<void> {
  return step(
    db,
    sql`UPDATE idempotency_keys SET response_body = ${response.body}, resource_id = ${response.resourceId}
         WHERE account_name = ${claim.accountName} AND operation = ${claim.operation} AND idempotency_key = ${claim.key}
           AND claim_token = ${claim.token} AND response_body IS NULL AND ${response.written}`,
    read.nothing,
  );
}

/** Whether `claim` still holds its key (answered or not). */
export function selectClaimHeld(db: Db, claim: IdempotencyClaimHeld): Step<boolean> {
  return step(
    db,
    sql`SELECT count(*) AS held FROM idempotency_keys
         WHERE account_name = ${claim.accountName} AND operation = ${claim.operation} AND idempotency_key = ${claim.key} AND claim_token = ${claim.token}`,
    (result) => read.first<{ held: number }>()(result)?.held === 1,
  );
}

/** Gives up a claim that wrote nothing; a claim another request has taken over is left alone. */
export function releaseKey(db: Db, claim: IdempotencyClaimHeld): Step<void> {
  return step(
    db,
    sql`DELETE FROM idempotency_keys
         WHERE account_name = ${claim.accountName} AND operation = ${claim.operation} AND idempotency_key = ${claim.key}
           AND claim_token = ${claim.token} AND response_body IS NULL`,
    read.nothing,
  );
}

/** Forgets the keys expired at `now`; reads how many. */
export function purgeExpiredKeys(db: Db, now: string): Step<number> {
  return step(db, sql`DELETE FROM idempotency_keys WHERE expires_at <= ${now}`, read.changes);
}
