-- Orders, box-office cancellation and the cancellation trail (docs/orders.md).

-- An order: several tickets bought in one purchase. Its tickets carry its id
-- and their line; prices and refunds stay on the tickets.
CREATE TABLE orders (
  order_id   TEXT PRIMARY KEY,
  sold_by    TEXT NOT NULL REFERENCES accounts (name),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

ALTER TABLE tickets ADD COLUMN order_id TEXT REFERENCES orders (order_id);
ALTER TABLE tickets ADD COLUMN order_line INTEGER CHECK (order_line BETWEEN 0 AND 49);
CREATE UNIQUE INDEX tickets_by_order ON tickets (order_id, order_line) WHERE order_id IS NOT NULL;

-- Who cancelled a ticket, why, and what is owed back. cancellation_id names
-- the request that cancelled it (one id for every ticket an order
-- cancellation took), so a retried cancellation finds what it did.
ALTER TABLE tickets ADD COLUMN cancellation_id TEXT;
ALTER TABLE tickets ADD COLUMN cancel_source TEXT
  CHECK (cancel_source IN ('box-office', 'event-deleted', 'date-removed', 'closure', 'schedule-change'));
ALTER TABLE tickets ADD COLUMN cancel_reason TEXT;
ALTER TABLE tickets ADD COLUMN refund_cents INTEGER CHECK (refund_cents >= 0);
CREATE INDEX tickets_by_cancellation ON tickets (cancellation_id) WHERE cancellation_id IS NOT NULL;

-- Tickets cancelled before this migration were all cancelled by the museum,
-- so they are refunded in full; a general ticket's closure and a weekly
-- schedule change cannot be told apart any more, and read as a closure.
UPDATE tickets
   SET cancel_source = CASE
         WHEN ticket_type = 'general' THEN 'closure'
         WHEN EXISTS (SELECT 1 FROM special_events e WHERE e.event_id = tickets.event_id AND e.cancelled_at IS NOT NULL)
           THEN 'event-deleted'
         ELSE 'date-removed'
       END,
       refund_cents = price_cents
 WHERE cancelled_at IS NOT NULL;

-- Changes that cancel tickets leave past tickets as they are, so the guards
-- of 0009 no longer refuse a change for a ticket of a day that has passed.
-- A trigger cannot know the museum's time zone: it guards the days that are
-- still to come in every time zone (from 14 hours ahead of UTC); the
-- service's own guard (src/tickets/follow.ts) covers today in the museum's.
DROP TRIGGER event_date_keeps_valid_tickets;
DROP TRIGGER closure_keeps_valid_tickets_insert;
DROP TRIGGER closure_keeps_valid_tickets_update;
DROP TRIGGER reopening_keeps_valid_tickets;

CREATE TRIGGER event_date_keeps_valid_tickets
BEFORE DELETE ON special_event_dates
WHEN OLD.event_date >= date('now', '+14 hours')
 AND EXISTS (SELECT 1 FROM tickets
              WHERE event_id = OLD.event_id AND ticket_date = OLD.event_date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;

CREATE TRIGGER closure_keeps_valid_tickets_insert
BEFORE INSERT ON museum_hours_exceptions
WHEN NEW.time_open IS NULL AND NEW.date >= date('now', '+14 hours')
 AND EXISTS (SELECT 1 FROM tickets
              WHERE ticket_type = 'general' AND ticket_date = NEW.date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;

CREATE TRIGGER closure_keeps_valid_tickets_update
BEFORE UPDATE ON museum_hours_exceptions
WHEN NEW.time_open IS NULL AND NEW.date >= date('now', '+14 hours')
 AND EXISTS (SELECT 1 FROM tickets
              WHERE ticket_type = 'general' AND ticket_date = NEW.date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;

CREATE TRIGGER reopening_keeps_valid_tickets
BEFORE DELETE ON museum_hours_exceptions
WHEN OLD.time_open IS NOT NULL AND OLD.date >= date('now', '+14 hours')
 AND NOT EXISTS (SELECT 1 FROM museum_weekly_hours
                  WHERE day_of_week = CAST(strftime('%w', OLD.date) AS INTEGER))
 AND EXISTS (SELECT 1 FROM tickets
              WHERE ticket_type = 'general' AND ticket_date = OLD.date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;

-- Idempotency-Keys belong to an account and an operation (buying a ticket,
-- an order, cancelling, admitting): the same key may be used once for each.
-- resource_id names what the first request made or changed.
CREATE TABLE idempotency_keys_by_operation (
  account_name    TEXT NOT NULL,
  operation       TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_sha256  TEXT NOT NULL,
  response_body   TEXT,
  resource_id     TEXT,
  claim_token     TEXT,
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  PRIMARY KEY (account_name, operation, idempotency_key)
) STRICT, WITHOUT ROWID;

INSERT INTO idempotency_keys_by_operation
       (account_name, operation, idempotency_key, request_sha256, response_body, resource_id, claim_token, created_at, expires_at)
SELECT account_name, 'buyMuseumTickets', idempotency_key, request_sha256, response_body, ticket_id, claim_token, created_at, expires_at
  FROM idempotency_keys;

DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_operation RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
