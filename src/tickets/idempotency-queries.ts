import type { Db } from "../env";
import type { BuyMuseumTicketsResponse } from "./schemas";

/** An account's Idempotency-Key. */
export type IdempotencyScope = { accountName: string; key: string };

/** A key claimed by one request: only the holder of `token` may write under it. */
export type IdempotencyClaimHeld = IdempotencyScope & { token: string };

export type IdempotencyClaim =
  /** This request owns the key now and must complete or release it. */
  | { kind: "claimed"; claim: IdempotencyClaimHeld }
  /** The key's first request finished: send its response again. */
  | { kind: "replay"; response: BuyMuseumTicketsResponse; ticketId: string }
  /** The key's first request is still running. */
  | { kind: "in-progress" }
  /** The key was used with a different request body. */
  | { kind: "mismatch" };

/** How long a finished key is remembered. */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A claim older than this with no response is taken as abandoned (its Worker died or stalled). */
const ABANDONED_CLAIM_MS = 60 * 1000;

/**
 * Claims `key` for this account and request in one atomic upsert: a new key,
 * an expired one, or an abandoned claim becomes ours, under a fresh random
 * token; anything else is reported as it stands. Race-free because SQLite
 * applies the upsert whole.
 */
export async function claimIdempotencyKey(
  db: Db,
  scope: IdempotencyScope,
  requestSha256: string,
  now: Date = new Date(),
): Promise<IdempotencyClaim> {
  const nowIso = now.toISOString();
  const token = crypto.randomUUID();
  const [claim, current] = await db.batch([
    db
      .prepare(
        `INSERT INTO idempotency_keys (account_name, idempotency_key, request_sha256, claim_token, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?7, ?4, ?5)
         ON CONFLICT (account_name, idempotency_key) DO UPDATE
            SET request_sha256 = excluded.request_sha256, claim_token = excluded.claim_token,
                response_body = NULL, ticket_id = NULL,
                created_at = excluded.created_at, expires_at = excluded.expires_at
          WHERE idempotency_keys.expires_at <= ?4
             OR (idempotency_keys.response_body IS NULL AND idempotency_keys.created_at <= ?6)
         RETURNING 1 AS claimed`,
      )
      .bind(
        scope.accountName,
        scope.key,
        requestSha256,
        nowIso,
        new Date(now.getTime() + KEY_LIFETIME_MS).toISOString(),
        new Date(now.getTime() - ABANDONED_CLAIM_MS).toISOString(),
        token,
      ),
    db
      .prepare(
        `SELECT request_sha256, response_body, ticket_id FROM idempotency_keys
          WHERE account_name = ?1 AND idempotency_key = ?2`,
      )
      .bind(scope.accountName, scope.key),
  ]);
  if (claim!.results.length > 0) return { kind: "claimed", claim: { ...scope, token } };
  const row = current!.results[0] as { request_sha256: string; response_body: string | null; ticket_id: string | null };
  if (row.request_sha256 !== requestSha256) return { kind: "mismatch" };
  if (row.response_body === null || row.ticket_id === null) return { kind: "in-progress" };
  // The body this service stored for the key's first response.
  const response: BuyMuseumTicketsResponse = JSON.parse(row.response_body);
  return { kind: "replay", response, ticketId: row.ticket_id };
}

/**
 * An SQL condition, true while `claim` still holds its key: for the ticket
 * insert, so that a request whose claim was taken over writes nothing.
 * Parameters ?8, ?9, ?10 (see `claimParameters`).
 */
export const CLAIM_HELD_SQL = `EXISTS (SELECT 1 FROM idempotency_keys
   WHERE account_name = ?8 AND idempotency_key = ?9 AND claim_token = ?10 AND response_body IS NULL)`;

export function claimParameters(claim: IdempotencyClaimHeld): [string, string, string] {
  return [claim.accountName, claim.key, claim.token];
}

/**
 * The statement that records the response of a claimed key. It belongs in the
 * same batch as the write it describes, and only applies while the claim is
 * this request's and `ticketId` was written by that batch.
 */
export function completeIdempotencyKey(db: Db, claim: IdempotencyClaimHeld, ticketId: string, responseBody: string) {
  return db
    .prepare(
      `UPDATE idempotency_keys SET response_body = ?3, ticket_id = ?4
        WHERE account_name = ?1 AND idempotency_key = ?2 AND claim_token = ?5 AND response_body IS NULL
          AND EXISTS (SELECT 1 FROM tickets WHERE ticket_id = ?4)`,
    )
    .bind(claim.accountName, claim.key, responseBody, ticketId, claim.token);
}

/** The statement telling whether `claim` still holds its key (one row `{ held }`). */
export function selectClaimHeld(db: Db, claim: IdempotencyClaimHeld) {
  return db
    .prepare(
      `SELECT count(*) AS held FROM idempotency_keys
        WHERE account_name = ?1 AND idempotency_key = ?2 AND claim_token = ?3`,
    )
    .bind(claim.accountName, claim.key, claim.token);
}

/**
 * Gives up a claim whose request failed, so the client may retry with the
 * key; a claim another request has taken over is left alone.
 */
export async function releaseIdempotencyKey(db: Db, claim: IdempotencyClaimHeld): Promise<void> {
  await db
    .prepare(
      `DELETE FROM idempotency_keys
        WHERE account_name = ?1 AND idempotency_key = ?2 AND claim_token = ?3 AND response_body IS NULL`,
    )
    .bind(claim.accountName, claim.key, claim.token)
    .run();
}

/** Forgets expired keys (run by the Cron Trigger); returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date = new Date()): Promise<number> {
  const result = await db
    .prepare("DELETE FROM idempotency_keys WHERE expires_at <= ?1")
    .bind(now.toISOString())
    .run();
  return result.meta.changes;
}
