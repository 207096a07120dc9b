-- Special events. A deleted event is kept, with cancelled_at set, because the
-- tickets sold for it are kept too.
CREATE TABLE special_events (
  event_id     TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  location     TEXT NOT NULL,
  description  TEXT NOT NULL,
  price_cents  INTEGER NOT NULL CHECK (price_cents BETWEEN 0 AND 100000000),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  cancelled_at TEXT
) STRICT;

-- One row per date of an event. event_name is a copy of special_events.name so
-- that the list query can walk the (event_date, event_name, event_id) index in
-- exactly the order it returns, and stop after one page.
CREATE TABLE special_event_dates (
  event_id   TEXT NOT NULL REFERENCES special_events (event_id),
  event_date TEXT NOT NULL,
  event_name TEXT NOT NULL,
  PRIMARY KEY (event_id, event_date)
) STRICT, WITHOUT ROWID;

CREATE INDEX special_event_dates_by_date
  ON special_event_dates (event_date, event_name, event_id);
