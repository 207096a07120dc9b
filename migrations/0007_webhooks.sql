-- publishNewEvent webhooks (docs/webhooks.md).
--
-- A subscription's signing secret is stored only encrypted (AES-GCM with the
-- Worker secret WEBHOOK_SECRET_KEY; secret_key_id names the key that sealed
-- it, so the key can be rotated). A deleted subscription keeps its row, with
-- deleted_at set, so its delivery history stays consistent; it gets nothing more.
CREATE TABLE webhook_subscriptions (
  webhook_id        TEXT PRIMARY KEY,
  url               TEXT NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  description       TEXT,
  secret_sealed     TEXT NOT NULL,
  secret_key_id     TEXT NOT NULL,
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  deleted_at        TEXT
) STRICT;

-- The outbox: one row per (event change, subscription), written in the same
-- D1 batch as the change. It is the record of truth of a delivery. payload is
-- the body sent: the event as GET /special-events/{id} returns it after the
-- change (JSON), read by the events feature's SQL in that batch.
-- enqueued_at: when the Queue accepted its message (NULL: never, which the
-- scheduled sweep repairs).
CREATE TABLE webhook_deliveries (
  delivery_id     TEXT PRIMARY KEY,
  webhook_id      TEXT NOT NULL REFERENCES webhook_subscriptions (webhook_id),
  event_id        TEXT NOT NULL,
  payload         TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'delivered', 'retrying', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  response_status INTEGER,
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  enqueued_at     TEXT,
  last_attempt_at TEXT,
  next_attempt_at TEXT
) STRICT;

-- GET /webhooks/{id}/deliveries: newest first.
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC);
-- The sweep: rows the Queue never got.
CREATE INDEX webhook_deliveries_unsent ON webhook_deliveries (created_at)
  WHERE enqueued_at IS NULL AND status = 'pending';
