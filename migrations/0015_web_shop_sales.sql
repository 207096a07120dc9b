-- Web-shop sales (docs/web-shop.md): ticket categories and their prices,
-- holds while the buyer pays, the shop's order reference, and the log the
-- cancellation and revocation feeds read.

-- Categories: adult, child, member… Never deleted, retired. Exactly one is
-- the default (what a purchase naming none is), and it is never accompanied
-- nor retired.
CREATE TABLE ticket_categories (
  category_id TEXT PRIMARY KEY CHECK (length(category_id) BETWEEN 1 AND 20 AND category_id NOT GLOB '*[^a-z0-9-]*'),
  name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  price_cents INTEGER NOT NULL CHECK (price_cents BETWEEN 0 AND 100000000),
  accompanied INTEGER NOT NULL DEFAULT 0 CHECK (accompanied IN (0, 1)),
  is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  unit_type   TEXT NOT NULL DEFAULT 'OTHER'
              CHECK (unit_type IN ('ADULT', 'YOUTH', 'CHILD', 'INFANT', 'FAMILY', 'SENIOR', 'STUDENT', 'MILITARY', 'OTHER')),
  retired_at  TEXT,
  CHECK (NOT (is_default = 1 AND (accompanied = 1 OR retired_at IS NOT NULL)))
) STRICT;

CREATE UNIQUE INDEX ticket_categories_one_default ON ticket_categories (is_default) WHERE is_default = 1;

-- The general price was the Worker's GENERAL_TICKET_PRICE_CENTS (2500).
INSERT INTO ticket_categories (category_id, name, price_cents, accompanied, is_default, unit_type)
VALUES ('adult', 'Adult', 2500, 0, 1, 'ADULT');

-- An event's price per category; a category not listed pays the event's price.
CREATE TABLE special_event_category_prices (
  event_id    TEXT NOT NULL REFERENCES special_events (event_id),
  category_id TEXT NOT NULL REFERENCES ticket_categories (category_id),
  price_cents INTEGER NOT NULL CHECK (price_cents BETWEEN 0 AND 100000000),
  PRIMARY KEY (event_id, category_id)
) STRICT, WITHOUT ROWID;

-- Orders: held while the buyer pays, then confirmed; or released. An order
-- is expired when it is held and its tickets' hold_until has passed (the
-- database's clock decides; nothing needs to record it). reference: the
-- seller's own order number, unique per account.
ALTER TABLE orders ADD COLUMN status TEXT NOT NULL DEFAULT 'confirmed'
  CHECK (status IN ('held', 'confirmed', 'released'));
ALTER TABLE orders ADD COLUMN reference TEXT CHECK (length(reference) BETWEEN 1 AND 64);
CREATE UNIQUE INDEX orders_by_reference ON orders (sold_by, reference) WHERE reference IS NOT NULL;
-- Admin and box-office find a reference among every account's orders.
CREATE INDEX orders_by_reference_any ON orders (reference) WHERE reference IS NOT NULL;

-- Tickets are rebuilt (SQLite cannot change a CHECK in place, as in
-- 0013_box_office_role.sql) for:
--   category      the ticket's category (every ticket sold so far: adult);
--   hold_until    while the ticket is held, when its hold ends (NULL once
--                 sold or confirmed); a held ticket has no buyer yet, so
--                 buyer_email may be NULL while it is held;
--   cancelled_by  the account that cancelled it at the box office;
--   cancel_source two more sources, a hold that expired or was released.
PRAGMA defer_foreign_keys = on;

CREATE TABLE tickets_copy AS SELECT * FROM tickets;

DROP TABLE tickets;

CREATE TABLE tickets (
  ticket_id         TEXT PRIMARY KEY,
  ticket_type       TEXT NOT NULL CHECK (ticket_type IN ('general', 'event')),
  ticket_date       TEXT NOT NULL,
  event_id          TEXT REFERENCES special_events (event_id),
  entry_time        TEXT CHECK (entry_time GLOB '[0-2][0-9]:[0-5][0-9]'),
  category          TEXT NOT NULL REFERENCES ticket_categories (category_id),
  confirmation_code TEXT NOT NULL UNIQUE,
  buyer_email       TEXT,
  buyer_phone       TEXT,
  price_cents       INTEGER NOT NULL CHECK (price_cents >= 0),
  sold_by           TEXT NOT NULL REFERENCES accounts (name),
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  order_id          TEXT REFERENCES orders (order_id),
  order_line        INTEGER CHECK (order_line BETWEEN 0 AND 49),
  hold_until        TEXT,
  admitted_at       TEXT,
  cancelled_at      TEXT,
  cancellation_id   TEXT,
  cancel_source     TEXT CHECK (cancel_source IN ('box-office', 'event-deleted', 'date-removed', 'closure',
                                                  'schedule-change', 'hold-expired', 'hold-released')),
  cancel_reason     TEXT,
  cancelled_by      TEXT REFERENCES accounts (name),
  refund_cents      INTEGER CHECK (refund_cents >= 0),
  CHECK ((ticket_type = 'event') = (event_id IS NOT NULL)),
  CHECK (buyer_email IS NOT NULL OR hold_until IS NOT NULL),
  CHECK (hold_until IS NULL OR order_id IS NOT NULL)
) STRICT;

INSERT INTO tickets (ticket_id, ticket_type, ticket_date, event_id, entry_time, category, confirmation_code,
                     buyer_email, buyer_phone, price_cents, sold_by, created_at, order_id, order_line,
                     admitted_at, cancelled_at, cancellation_id, cancel_source, cancel_reason, refund_cents)
SELECT ticket_id, ticket_type, ticket_date, event_id, entry_time, 'adult', confirmation_code,
       buyer_email, buyer_phone, price_cents, sold_by, created_at, order_id, order_line,
       admitted_at, cancelled_at, cancellation_id, cancel_source, cancel_reason, refund_cents
  FROM tickets_copy;

DROP TABLE tickets_copy;

CREATE INDEX tickets_by_event ON tickets (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX tickets_by_date ON tickets (ticket_date, ticket_type, event_id, cancelled_at, admitted_at);
CREATE UNIQUE INDEX tickets_by_order ON tickets (order_id, order_line) WHERE order_id IS NOT NULL;
CREATE INDEX tickets_by_cancellation ON tickets (cancellation_id) WHERE cancellation_id IS NOT NULL;
-- The holds not yet confirmed, released or recorded as expired: few rows, so
-- counting a day's live holds (or its expired ones) reads only them.
CREATE INDEX tickets_on_hold ON tickets (ticket_date, hold_until) WHERE hold_until IS NOT NULL AND cancelled_at IS NULL;

-- Places: a ticket takes its places from its insert (held or not) until it is
-- cancelled, as before. A hold that expired still counts here until it is
-- recorded as cancelled; the reads subtract it (tickets/statements.ts
-- placesTaken), so its places are free at hold_until exactly. A late
-- confirmation of a recorded expiry takes its places again.
CREATE TRIGGER ticket_takes_places
AFTER INSERT ON tickets
WHEN NEW.cancelled_at IS NULL
BEGIN
  INSERT INTO ticket_places (ticket_date, scope, ref, taken)
  SELECT NEW.ticket_date, 'day', '', 1 WHERE NEW.ticket_type = 'general'
  UNION ALL SELECT NEW.ticket_date, 'slot', NEW.entry_time, 1 WHERE NEW.entry_time IS NOT NULL
  UNION ALL SELECT NEW.ticket_date, 'event', NEW.event_id, 1 WHERE NEW.ticket_type = 'event'
  ON CONFLICT (ticket_date, scope, ref) DO UPDATE SET taken = taken + 1;
END;

CREATE TRIGGER cancelled_ticket_frees_places
AFTER UPDATE OF cancelled_at ON tickets
WHEN OLD.cancelled_at IS NULL AND NEW.cancelled_at IS NOT NULL
BEGIN
  UPDATE ticket_places SET taken = taken - 1
   WHERE ticket_date = NEW.ticket_date
     AND ((scope = 'day' AND ref = '' AND NEW.ticket_type = 'general')
       OR (scope = 'slot' AND ref = NEW.entry_time)
       OR (scope = 'event' AND ref = NEW.event_id AND NEW.ticket_type = 'event'));
END;

CREATE TRIGGER reinstated_ticket_takes_places
AFTER UPDATE OF cancelled_at ON tickets
WHEN OLD.cancelled_at IS NOT NULL AND NEW.cancelled_at IS NULL
BEGIN
  INSERT INTO ticket_places (ticket_date, scope, ref, taken)
  SELECT NEW.ticket_date, 'day', '', 1 WHERE NEW.ticket_type = 'general'
  UNION ALL SELECT NEW.ticket_date, 'slot', NEW.entry_time, 1 WHERE NEW.entry_time IS NOT NULL
  UNION ALL SELECT NEW.ticket_date, 'event', NEW.event_id, 1 WHERE NEW.ticket_type = 'event'
  ON CONFLICT (ticket_date, scope, ref) DO UPDATE SET taken = taken + 1;
END;

-- The append-only log of revoked codes (a ticket cancelled, or its code
-- signed by a key withdrawn), numbered in the batch that cancels
-- them (position: AUTOINCREMENT, never reused), so a feed read by cursor
-- never skips nor repeats one. Written here, in the cancelling statement's
-- own transaction, for every ticket that was sold (a held one, released or
-- expired or cancelled by a change, had no code and was never paid for).
CREATE TABLE ticket_revocations (
  position   INTEGER PRIMARY KEY AUTOINCREMENT,
  ticket_id  TEXT NOT NULL REFERENCES tickets (ticket_id),
  reason     TEXT NOT NULL CHECK (reason IN ('cancelled', 'key-withdrawn')),
  revoked_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

CREATE TRIGGER cancelled_ticket_is_revoked
AFTER UPDATE OF cancelled_at ON tickets
WHEN OLD.cancelled_at IS NULL AND NEW.cancelled_at IS NOT NULL
 AND NEW.hold_until IS NULL
BEGIN
  INSERT INTO ticket_revocations (ticket_id, reason, revoked_at) VALUES (NEW.ticket_id, 'cancelled', NEW.cancelled_at);
END;
