-- The museum's regular week. A weekday without a row is a closed day.
-- day_of_week follows SQLite's strftime('%w'): 0 = Sunday … 6 = Saturday.
CREATE TABLE museum_weekly_hours (
  day_of_week INTEGER PRIMARY KEY CHECK (day_of_week BETWEEN 0 AND 6),
  time_open   TEXT NOT NULL CHECK (time_open GLOB '[0-2][0-9]:[0-5][0-9]'),
  time_close  TEXT NOT NULL CHECK (time_close GLOB '[0-2][0-9]:[0-5][0-9]'),
  CHECK (time_open < time_close)
) STRICT;

-- Dated exceptions to the week: a closure (no times) or special hours.
CREATE TABLE museum_hours_exceptions (
  date       TEXT PRIMARY KEY CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  time_open  TEXT CHECK (time_open GLOB '[0-2][0-9]:[0-5][0-9]'),
  time_close TEXT CHECK (time_close GLOB '[0-2][0-9]:[0-5][0-9]'),
  reason     TEXT,
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK ((time_open IS NULL) = (time_close IS NULL)),
  CHECK (time_open IS NULL OR time_open < time_close)
) STRICT, WITHOUT ROWID;

-- The default schedule: Monday–Thursday 09:00–18:00, Friday 10:00–16:00,
-- weekends closed.
INSERT INTO museum_weekly_hours (day_of_week, time_open, time_close) VALUES
  (1, '09:00', '18:00'),
  (2, '09:00', '18:00'),
  (3, '09:00', '18:00'),
  (4, '09:00', '18:00'),
  (5, '10:00', '16:00');
