import type { Db } from "../env";
import { SQL_NOW, sqlNowShifted } from "../platform/sql";

/** At most this many live subscriptions (the contract: a 21st is 409). */
export const MAX_SUBSCRIPTIONS = 20;
/** GET /webhooks/{id}/deliveries lists at most this many, newest first. */
export const DELIVERIES_LISTED = 30;

export type SubscriptionRow = {
  webhook_id: string;
  url: string;
  description: string | null;
  created_at: string;
};

export type DeliveryStatus = "pending" | "delivered" | "retrying" | "failed";

export type DeliveryRow = {
  delivery_id: string;
  event_id: string;
  attempts: number;
  status: DeliveryStatus;
  response_status: number | null;
  last_attempt_at: string | null;
};

const SUBSCRIPTION_COLUMNS = "webhook_id, url, description, created_at";

export type NewSubscription = {
  webhookId: string;
  url: string;
  description: string | null;
  secretSealed: string;
  secretKeyId: string;
};

/**
 * Inserts a subscription unless MAX_SUBSCRIPTIONS live ones exist (checked
 * by the insert itself, so two concurrent creates cannot both pass); null
 * when the limit is reached.
 */
export async function insertSubscription(db: Db, s: NewSubscription): Promise<SubscriptionRow | null> {
  return db
    .prepare(
      `INSERT INTO webhook_subscriptions (webhook_id, url, description, secret_sealed, secret_key_id)
       SELECT ?1, ?2, ?3, ?4, ?5
        WHERE (SELECT count(*) FROM webhook_subscriptions WHERE deleted_at IS NULL) < ?6
       RETURNING ${SUBSCRIPTION_COLUMNS}`,
    )
    .bind(s.webhookId, s.url, s.description, s.secretSealed, s.secretKeyId, MAX_SUBSCRIPTIONS)
    .first<SubscriptionRow>();
}

export async function listSubscriptions(db: Db): Promise<SubscriptionRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions
        WHERE deleted_at IS NULL ORDER BY created_at, webhook_id`,
    )
    .all<SubscriptionRow>();
  return results;
}

function selectSubscription(db: Db, webhookId: string) {
  return db
    .prepare(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE webhook_id = ?1 AND deleted_at IS NULL`)
    .bind(webhookId);
}

export async function findSubscription(db: Db, webhookId: string): Promise<SubscriptionRow | null> {
  return selectSubscription(db, webhookId).first<SubscriptionRow>();
}

/**
 * Deletes a subscription and ends its unfinished deliveries (`failed`, never
 * sent again) in one batch; false when no live subscription has that id.
 */
export async function deleteSubscription(db: Db, webhookId: string): Promise<boolean> {
  // Deliveries first, while the subscription still reads as live.
  const [, deleted] = await db.batch([
    db
      .prepare(
        `UPDATE webhook_deliveries SET status = 'failed'
          WHERE webhook_id = ?1 AND status IN ('pending', 'retrying')
            AND EXISTS (SELECT 1 FROM webhook_subscriptions WHERE webhook_id = ?1 AND deleted_at IS NULL)`,
      )
      .bind(webhookId),
    db
      .prepare(`UPDATE webhook_subscriptions SET deleted_at = ${SQL_NOW} WHERE webhook_id = ?1 AND deleted_at IS NULL`)
      .bind(webhookId),
  ]);
  return deleted!.meta.changes > 0;
}

/** A live subscription and its latest deliveries, in one round trip; null when there is no such subscription. */
export async function findSubscriptionDeliveries(
  db: Db,
  webhookId: string,
): Promise<{ subscription: SubscriptionRow; deliveries: DeliveryRow[] } | null> {
  const [subscription, deliveries] = await db.batch([
    selectSubscription(db, webhookId),
    db
      .prepare(
        `SELECT delivery_id, event_id, attempts, status, response_status, last_attempt_at
           FROM webhook_deliveries WHERE webhook_id = ?1
          ORDER BY created_at DESC, rowid DESC LIMIT ?2`,
      )
      .bind(webhookId, DELIVERIES_LISTED),
  ]);
  const row = subscription!.results[0] as SubscriptionRow | undefined;
  return row ? { subscription: row, deliveries: deliveries!.results as DeliveryRow[] } : null;
}

// ---------------------------------------------------------------------------
// The outbox
// ---------------------------------------------------------------------------

// A time-ordered (version 7) uuid, computed per row inside SQLite: 48 bits of
// Unix milliseconds, then random bits. The rows of one event change share
// the time, so they land side by side at the end of the primary key's b-tree
// (one page written) instead of on random pages, however large the table.
const SQL_UNIX_MS_HEX = `printf('%012x', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))`;
const SQL_UUID_V7 = `substr(${SQL_UNIX_MS_HEX}, 1, 8) || '-' || substr(${SQL_UNIX_MS_HEX}, 9, 4) || '-7' ||
  substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||
  substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))`;

/**
 * The statement that records one pending delivery per live subscription for
 * an event change, meant for the batch that makes the change (so both
 * commit or neither does, and no round trip reads the subscriptions first).
 * `payloadSql` is a SELECT of one `payload` column (the body, JSON) whose
 * only parameter is ?1, the event's id; when it finds no row (no such
 * active event), nothing is recorded. Returns the new `delivery_id`s.
 */
export function insertEventDeliveries(db: Db, eventId: string, payloadSql: string) {
  return db
    .prepare(
      `INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, payload)
       SELECT ${SQL_UUID_V7}, s.webhook_id, ?1, body.payload
         FROM webhook_subscriptions s, (${payloadSql}) body
        WHERE s.deleted_at IS NULL
       RETURNING delivery_id`,
    )
    .bind(eventId);
}

/**
 * Pending deliveries (no attempt yet) handed to the Queue at least
 * `graceSeconds` ago, by the request that recorded them or by the last
 * sweep, oldest first: those the Queue most likely never got.
 */
export async function findUnattemptedDeliveries(db: Db, graceSeconds: number, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT delivery_id FROM webhook_deliveries
        WHERE status = 'pending'
          AND coalesce(resent_at, created_at) <= ${sqlNowShifted("'-' || ?1 || ' seconds'")}
        ORDER BY coalesce(resent_at, created_at) LIMIT ?2`,
    )
    .bind(graceSeconds, limit)
    .all<{ delivery_id: string }>();
  return results.map((r) => r.delivery_id);
}

/** Notes that the sweep handed these still pending deliveries to the Queue again. */
export async function markResent(db: Db, deliveryIds: string[]): Promise<void> {
  await db
    .prepare(
      `UPDATE webhook_deliveries SET resent_at = ${SQL_NOW}
        WHERE delivery_id IN (SELECT value FROM json_each(?1)) AND status = 'pending'`,
    )
    .bind(JSON.stringify(deliveryIds))
    .run();
}

// ---------------------------------------------------------------------------
// The consumer
// ---------------------------------------------------------------------------

export type DeliveryWork = {
  delivery_id: string;
  webhook_id: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  url: string;
  secret_sealed: string;
  secret_key_id: string;
  deleted_at: string | null;
};

/** A delivery with what sending it takes (its subscription's URL and sealed secret). */
export async function findDeliveryWork(db: Db, deliveryId: string): Promise<DeliveryWork | null> {
  return db
    .prepare(
      `SELECT d.delivery_id, d.webhook_id, d.payload, d.status, d.attempts,
              s.url, s.secret_sealed, s.secret_key_id, s.deleted_at
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id
        WHERE d.delivery_id = ?1`,
    )
    .bind(deliveryId)
    .first<DeliveryWork>();
}

export type AttemptOutcome = {
  status: Exclude<DeliveryStatus, "pending">;
  responseStatus: number | null;
  /** Seconds until the next attempt (retrying only). */
  retryInSeconds: number | null;
};

/**
 * Records the attempt after `attemptsBefore` earlier ones; false when another
 * consumer recorded one first (a duplicate message), so this one changes nothing.
 */
export async function recordAttempt(
  db: Db,
  deliveryId: string,
  attemptsBefore: number,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE webhook_deliveries
          SET attempts = attempts + 1, status = ?3, response_status = ?4, last_attempt_at = ${SQL_NOW},
              next_attempt_at = CASE WHEN ?5 IS NULL THEN NULL
                                     ELSE ${sqlNowShifted("'+' || ?5 || ' seconds'")} END
        WHERE delivery_id = ?1 AND attempts = ?2 AND status IN ('pending', 'retrying')`,
    )
    .bind(deliveryId, attemptsBefore, outcome.status, outcome.responseStatus, outcome.retryInSeconds)
    .run();
  return result.meta.changes > 0;
}
