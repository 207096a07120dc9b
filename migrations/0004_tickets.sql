-- Tickets sold. Rows are never deleted: a ticket of a deleted event is kept
-- with cancelled_at set.
CREATE TABLE tickets (
  ticket_id         TEXT PRIMARY KEY,
  ticket_type       TEXT NOT NULL CHECK (ticket_type IN ('general', 'event')),
  ticket_date       TEXT NOT NULL,
  event_id          TEXT REFERENCES special_events (event_id),
  confirmation_code TEXT NOT NULL UNIQUE,
  buyer_email       TEXT NOT NULL,
  buyer_phone       TEXT,
  price_cents       INTEGER NOT NULL CHECK (price_cents >= 0),
  sold_by           TEXT NOT NULL REFERENCES accounts (name),
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  cancelled_at      TEXT,
  CHECK ((ticket_type = 'event') = (event_id IS NOT NULL))
) STRICT;

CREATE INDEX tickets_by_event ON tickets (event_id) WHERE event_id IS NOT NULL;

-- Idempotency-Key records for POST /tickets, per account. A row with a NULL
-- response_body is a purchase still in progress.
CREATE TABLE idempotency_keys (
  account_name    TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_sha256  TEXT NOT NULL,
  response_body   TEXT,
  ticket_id       TEXT,
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  PRIMARY KEY (account_name, idempotency_key)
) STRICT, WITHOUT ROWID;

CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
