-- Scans a gate made offline and uploaded later (docs/admission.md, "Offline
-- gates"). One row per uploading account and scanId, written in the batch
-- that judges the upload; never changed afterwards. A scanId sent again
-- answers its row. position: the order scans reached the service
-- (AUTOINCREMENT, never reused), the order conflicts are listed in.
--   code_sha256        the code's hash: the same scanId with another code is refused
--   ticket_id          the ticket the code named, when it is genuine and this database holds it
--   ticket_date        that ticket's date (the day its conflicts are listed on)
--   device_scanned_at  the scan's time by the device's clock
--   scanned_at         that time corrected by the upload's sentAt (what it is judged at)
--   scanned_on         the museum's date at scanned_at (where a code naming no ticket is listed)
CREATE TABLE offline_scans (
  position          INTEGER PRIMARY KEY AUTOINCREMENT,
  gate              TEXT NOT NULL REFERENCES accounts (name),
  scan_id           TEXT NOT NULL,
  code_sha256       TEXT NOT NULL CHECK (length(code_sha256) = 64),
  ticket_id         TEXT REFERENCES tickets (ticket_id),
  ticket_date       TEXT,
  device_scanned_at TEXT NOT NULL,
  scanned_at        TEXT NOT NULL,
  scanned_on        TEXT NOT NULL,
  outcome           TEXT NOT NULL CHECK (outcome IN ('admitted', 'already-admitted', 'ticket-cancelled',
                      'cancelled-after-entry', 'not-valid-today', 'too-early', 'too-late',
                      'invalid-ticket-code', 'rejected')),
  uploaded_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (gate, scan_id),
  CHECK ((ticket_id IS NULL) = (ticket_date IS NULL))
) STRICT;

-- A day's conflicts: those of its tickets, and those of codes naming no ticket scanned that day.
CREATE INDEX offline_conflicts_by_ticket_date ON offline_scans (ticket_date, position)
  WHERE ticket_id IS NOT NULL AND outcome NOT IN ('admitted', 'rejected');
CREATE INDEX offline_conflicts_by_scan_date ON offline_scans (scanned_on, position)
  WHERE ticket_id IS NULL AND outcome NOT IN ('admitted', 'rejected');
