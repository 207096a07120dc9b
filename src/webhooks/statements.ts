// The webhooks feature's tables (webhook_subscriptions, webhook_deliveries): every statement on them.
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import { SQL_NOW, sqlNowShiftedSeconds } from "../platform/sql";

/** At most this many live subscriptions (the contract: a 21st is 409). */
export const MAX_SUBSCRIPTIONS = 20;
/** GET /webhooks/{id}/deliveries lists at most this many, newest first. */
const DELIVERIES_LISTED = 30;

export type SubscriptionRow = {
  webhook_id: string;
  url: string;
  description: string | null;
  created_at: string;
};

type DeliveryStatus = "pending" | "delivered" | "retrying" | "failed";

export type DeliveryRow = {
  delivery_id: string;
  event_id: string;
  attempts: number;
  status: DeliveryStatus;
  response_status: number | null;
  last_attempt_at: string | null;
};


const SUBSCRIPTION_COLUMNS = sql`webhook_id, url, description, created_at`;

export type NewSubscription = {
  webhookId: string;
  url: string;
  description: string | null;
  secretSealed: string;
  secretKeyId: string;
};

/**
 * Inserts a subscription unless MAX_SUBSCRIPTIONS live ones exist (checked
 * by the insert itself, so two concurrent creates cannot both pass); reads
 * null when the limit is reached.
 */
export function insertSubscription(db: Db, s: NewSubscription): Step<SubscriptionRow | null> {
  return step(
    db,
    sql`INSERT INTO webhook_subscriptions (webhook_id, url, description, secret_sealed, secret_key_id)
        SELECT ${s.webhookId}, ${s.url}, ${s.description}, ${s.secretSealed}, ${s.secretKeyId}
         WHERE (SELECT count(*) FROM webhook_subscriptions WHERE deleted_at IS NULL) < ${MAX_SUBSCRIPTIONS}
        RETURNING ${SUBSCRIPTION_COLUMNS}`,
    read.first<SubscriptionRow>(),
  );
}

export function selectSubscriptions(db: Db): Step<SubscriptionRow[]> {
  return step(
    db,
    sql`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE deleted_at IS NULL ORDER BY created_at, webhook_id`,
    read.rows<SubscriptionRow>(),
  );
}

export function selectSubscription(db: Db, webhookId: string): Step<SubscriptionRow | null> {
  return step(
    db,
    sql`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE webhook_id = ${webhookId} AND deleted_at IS NULL`,
    read.first<SubscriptionRow>(),
  );
}

/**
 * The statements that delete a subscription and end its unfinished
 * deliveries (`failed`, never sent again), deliveries first while the
 * subscription still reads as live; the last reads whether one was deleted.
 */
export function softDeleteSubscription(db: Db, webhookId: string): [Step<void>, Step<boolean>] {
  return [
    step(
      db,
      sql`UPDATE webhook_deliveries SET status = 'failed'
           WHERE webhook_id = ${webhookId} AND status IN ('pending', 'retrying')
             AND EXISTS (SELECT 1 FROM webhook_subscriptions WHERE webhook_id = ${webhookId} AND deleted_at IS NULL)`,
      read.nothing,
    ),
    step(
      db,
      sql`UPDATE webhook_subscriptions SET deleted_at = ${SQL_NOW} WHERE webhook_id = ${webhookId} AND deleted_at IS NULL`,
      (result) => read.changes(result) > 0,
    ),
  ];
}

/** A subscription's latest deliveries, newest first. */
export function selectDeliveries(db: Db, webhookId: string): Step<DeliveryRow[]> {
  return step(
    db,
    sql`SELECT delivery_id, event_id, attempts, status, response_status, last_attempt_at
          FROM webhook_deliveries WHERE webhook_id = ${webhookId}
         ORDER BY created_at DESC, rowid DESC LIMIT ${DELIVERIES_LISTED}`,
    read.rows<DeliveryRow>(),
  );
}

// ---------------------------------------------------------------------------
// The outbox
// ---------------------------------------------------------------------------

// A time-ordered (version 7) uuid, computed per row inside SQLite: 48 bits of
// Unix milliseconds, then random bits. The rows of one event change share
// the time, so they land side by side at the end of the primary key's b-tree
// (one page written) instead of on random pages, however large the table.
const SQL_UNIX_MS_HEX = `printf('%012x', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))`;
const SQL_UUID_V7 = raw(`substr(${SQL_UNIX_MS_HEX}, 1, 8) || '-' || substr(${SQL_UNIX_MS_HEX}, 9, 4) || '-7' ||
  substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||
  substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))`);

/**
 * Records one pending delivery per live subscription for an event change,
 * meant for the batch that makes the change (so both commit or neither does,
 * and no round trip reads the subscriptions first). `payload` is a SELECT of
 * one `payload` column, the body (JSON); when it finds no row (no such
 * active event), nothing is recorded. Reads the new `delivery_id`s.
 */
export function insertEventDeliveries(db: Db, eventId: string, payload: Sql): Step<string[]> {
  return step(
    db,
    sql`INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, payload)
        SELECT ${SQL_UUID_V7}, s.webhook_id, ${eventId}, body.payload
          FROM webhook_subscriptions s, (${payload}) body
         WHERE s.deleted_at IS NULL
        RETURNING delivery_id`,
    (result) => read.rows<{ delivery_id: string }>()(result).map((row) => row.delivery_id),
  );
}

/**
 * Pending deliveries (no attempt yet) handed to the Queue at least
 * `graceSeconds` ago, by the request that recorded them or by the last
 * sweep, oldest first: those the Queue most likely never got.
 */
export function selectUnattemptedDeliveries(db: Db, graceSeconds: number, limit: number): Step<string[]> {
  return step(
    db,
    sql`SELECT delivery_id FROM webhook_deliveries
         WHERE status = 'pending'
           AND coalesce(resent_at, created_at) <= ${sqlNowShiftedSeconds(-graceSeconds)}
         ORDER BY coalesce(resent_at, created_at) LIMIT ${limit}`,
    (result) => read.rows<{ delivery_id: string }>()(result).map((row) => row.delivery_id),
  );
}

/** Notes that the sweep handed these still pending deliveries to the Queue again. */
export function markResent(db: Db, deliveryIds: string[]): Step<void> {
  return step(
    db,
    sql`UPDATE webhook_deliveries SET resent_at = ${SQL_NOW}
         WHERE delivery_id IN (SELECT value FROM json_each(${JSON.stringify(deliveryIds)})) AND status = 'pending'`,
    read.nothing,
  );
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
export function selectDeliveryWork(db: Db, deliveryId: string): Step<DeliveryWork | null> {
  return step(
    db,
    sql`SELECT d.delivery_id, d.webhook_id, d.payload, d.status, d.attempts,
               s.url, s.secret_sealed, s.secret_key_id, s.deleted_at
          FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id
         WHERE d.delivery_id = ${deliveryId}`,
    read.first<DeliveryWork>(),
  );
}

export type AttemptOutcome = {
  status: Exclude<DeliveryStatus, "pending">;
  responseStatus: number | null;
  /** Seconds until the next attempt (retrying only). */
  retryInSeconds: number | null;
};

/**
 * Records the attempt after `attemptsBefore` earlier ones; reads false when
 * another consumer recorded one first (a duplicate message), so this one changes nothing.
 */
export function recordAttempt(db: Db, deliveryId: string, attemptsBefore: number, outcome: AttemptOutcome): Step<boolean> {
  const nextAttempt = outcome.retryInSeconds === null ? sql`NULL` : sqlNowShiftedSeconds(outcome.retryInSeconds);
  return step(
    db,
    sql`UPDATE webhook_deliveries
           SET attempts = attempts + 1, status = ${outcome.status}, response_status = ${outcome.responseStatus},
               last_attempt_at = ${SQL_NOW}, next_attempt_at = ${nextAttempt}
         WHERE delivery_id = ${deliveryId} AND attempts = ${attemptsBefore} AND status IN ('pending', 'retrying')`,
    (result) => read.changes(result) > 0,
  );
}
