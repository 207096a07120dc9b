import type { Db } from "../env";

export type IdempotencyScope = { accountName: string; key: string };

export type IdempotencyClaim =
  /** This request owns the key now and must complete or release it. */
  | { kind: "claimed" }
  /** The key's first request finished: send its response again. */
  | { kind: "replay"; responseBody: string }
  /** The key's first request is still running. */
  | { kind: "in-progress" }
  /** The key was used with a different request body. */
  | { kind: "mismatch" };

/** How long a finished key is remembered. */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A claim older than this with no response is taken as abandoned (its Worker died). */
export const ABANDONED_CLAIM_MS = 60 * 1000;

/**
 * Claims `key` for this account and request in one atomic upsert: a new key,
 * an expired one, or an abandoned claim becomes ours; anything else is
 * reported as it stands. Race-free because SQLite applies the upsert whole.
 */
export async function claimIdempotencyKey(
  db: Db,
  scope: IdempotencyScope,
  requestSha256: string,
  now: Date = new Date(),
): Promise<IdempotencyClaim> {
  const nowIso = now.toISOString();
  const [claim, current] = await db.batch([
    db
      .prepare(
        `INSERT INTO idempotency_keys (account_name, idempotency_key, request_sha256, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (account_name, idempotency_key) DO UPDATE
            SET request_sha256 = excluded.request_sha256, response_body = NULL, ticket_id = NULL,
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
      ),
    db
      .prepare(
        `SELECT request_sha256, response_body FROM idempotency_keys
          WHERE account_name = ?1 AND idempotency_key = ?2`,
      )
      .bind(scope.accountName, scope.key),
  ]);
  if (claim!.results.length > 0) return { kind: "claimed" };
  const row = current!.results[0] as { request_sha256: string; response_body: string | null };
  if (row.request_sha256 !== requestSha256) return { kind: "mismatch" };
  if (row.response_body === null) return { kind: "in-progress" };
  return { kind: "replay", responseBody: row.response_body };
}

/**
 * The statement that records the response of a claimed key. It belongs in the
 * same batch as the write it describes, and only applies when `ticketId`
 * was written by that batch.
 */
export function completeIdempotencyKey(db: Db, scope: IdempotencyScope, ticketId: string, responseBody: string) {
  return db
    .prepare(
      `UPDATE idempotency_keys SET response_body = ?3, ticket_id = ?4
        WHERE account_name = ?1 AND idempotency_key = ?2 AND response_body IS NULL
          AND EXISTS (SELECT 1 FROM tickets WHERE ticket_id = ?4)`,
    )
    .bind(scope.accountName, scope.key, responseBody, ticketId);
}

/** Gives up a claim whose request failed, so the client may retry with the key. */
export async function releaseIdempotencyKey(db: Db, scope: IdempotencyScope): Promise<void> {
  await db
    .prepare(
      `DELETE FROM idempotency_keys
        WHERE account_name = ?1 AND idempotency_key = ?2 AND response_body IS NULL`,
    )
    .bind(scope.accountName, scope.key)
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
