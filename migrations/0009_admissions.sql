-- A ticket's life after the sale (docs/admission.md). Its status is derived:
-- cancelled when cancelled_at is set, admitted when admitted_at is set,
-- valid otherwise; the two never both hold (only a valid ticket is cancelled
-- or admitted).
ALTER TABLE tickets ADD COLUMN admitted_at TEXT;

-- One row per admitted ticket: who let it in and when. UNIQUE (ticket_id)
-- is what makes an admission happen at most once, whatever the concurrency.
CREATE TABLE admissions (
  admission_id TEXT PRIMARY KEY,
  ticket_id    TEXT NOT NULL UNIQUE REFERENCES tickets (ticket_id),
  admitted_at  TEXT NOT NULL,
  gate         TEXT NOT NULL REFERENCES accounts (name)
) STRICT;

-- The attendance summary of a day walks this index only (docs/performance.md).
CREATE INDEX tickets_by_date ON tickets (ticket_date, ticket_type, event_id, cancelled_at, admitted_at);

-- A schedule change never strands a valid ticket: whatever writes the
-- schedule, removing an event date that has valid tickets, or closing a day
-- that has valid general tickets, fails (and rolls back its whole batch).
-- The API first cancels those tickets when asked to (?cancelTickets=true).
CREATE TRIGGER event_date_keeps_valid_tickets
BEFORE DELETE ON special_event_dates
WHEN EXISTS (SELECT 1 FROM tickets
              WHERE event_id = OLD.event_id AND ticket_date = OLD.event_date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;

CREATE TRIGGER closure_keeps_valid_tickets_insert
BEFORE INSERT ON museum_hours_exceptions
WHEN NEW.time_open IS NULL AND EXISTS (SELECT 1 FROM tickets
              WHERE ticket_type = 'general' AND ticket_date = NEW.date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;

CREATE TRIGGER closure_keeps_valid_tickets_update
BEFORE UPDATE ON museum_hours_exceptions
WHEN NEW.time_open IS NULL AND EXISTS (SELECT 1 FROM tickets
              WHERE ticket_type = 'general' AND ticket_date = NEW.date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;

-- Removing special hours from a day the weekly schedule keeps closed closes it.
CREATE TRIGGER reopening_keeps_valid_tickets
BEFORE DELETE ON museum_hours_exceptions
WHEN OLD.time_open IS NOT NULL
 AND NOT EXISTS (SELECT 1 FROM museum_weekly_hours
                  WHERE day_of_week = CAST(strftime('%w', OLD.date) AS INTEGER))
 AND EXISTS (SELECT 1 FROM tickets
              WHERE ticket_type = 'general' AND ticket_date = OLD.date
                AND cancelled_at IS NULL AND admitted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'tickets_would_be_stranded');
END;
