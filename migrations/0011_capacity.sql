-- Capacity and timed entry (docs/capacity.md). Every limit is optional:
-- NULL is no limit, and a day without entry_slot_minutes has no timed entry.
ALTER TABLE special_events ADD COLUMN capacity INTEGER CHECK (capacity BETWEEN 1 AND 100000);

ALTER TABLE museum_weekly_hours ADD COLUMN capacity INTEGER CHECK (capacity BETWEEN 1 AND 100000);
ALTER TABLE museum_weekly_hours ADD COLUMN entry_slot_minutes INTEGER CHECK (entry_slot_minutes BETWEEN 5 AND 240);
ALTER TABLE museum_weekly_hours ADD COLUMN slot_capacity INTEGER CHECK (slot_capacity BETWEEN 1 AND 100000);

ALTER TABLE museum_hours_exceptions ADD COLUMN capacity INTEGER CHECK (capacity BETWEEN 1 AND 100000);
ALTER TABLE museum_hours_exceptions ADD COLUMN entry_slot_minutes INTEGER CHECK (entry_slot_minutes BETWEEN 5 AND 240);
ALTER TABLE museum_hours_exceptions ADD COLUMN slot_capacity INTEGER CHECK (slot_capacity BETWEEN 1 AND 100000);

-- A general ticket's entry slot (HH:mm) on a timed day.
ALTER TABLE tickets ADD COLUMN entry_time TEXT CHECK (entry_time GLOB '[0-2][0-9]:[0-5][0-9]');

-- Places taken (valid and admitted tickets) per date: a day's general
-- tickets (scope 'day', ref ''), an entry slot's (scope 'slot', ref HH:mm)
-- and an event's (scope 'event', ref its id). Kept by the triggers below in
-- the same transaction as the ticket's insert or cancellation, so a sale's
-- guard reads one row however many tickets were sold.
CREATE TABLE ticket_places (
  ticket_date TEXT NOT NULL,
  scope       TEXT NOT NULL CHECK (scope IN ('day', 'slot', 'event')),
  ref         TEXT NOT NULL,
  taken       INTEGER NOT NULL CHECK (taken >= 0),
  PRIMARY KEY (ticket_date, scope, ref)
) STRICT, WITHOUT ROWID;

INSERT INTO ticket_places (ticket_date, scope, ref, taken)
SELECT ticket_date, 'day', '', count(*) FROM tickets
 WHERE ticket_type = 'general' AND cancelled_at IS NULL GROUP BY ticket_date
UNION ALL
SELECT ticket_date, 'event', event_id, count(*) FROM tickets
 WHERE ticket_type = 'event' AND cancelled_at IS NULL GROUP BY ticket_date, event_id;

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

-- A batch's guard (src/platform/batch.ts): a statement that inserts a row
-- here only when its condition is violated, which fails this constraint and
-- so undoes the whole batch. No row is ever stored.
CREATE TABLE batch_guards (
  refusal TEXT CONSTRAINT batch_guard_refused CHECK (refusal IS NULL)
) STRICT;
