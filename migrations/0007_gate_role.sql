-- A third role, `gate` (turnstiles and door scanners): it may only admit
-- tickets. SQLite cannot change a CHECK constraint in place, so the table is
-- rebuilt: create the new one, copy, drop the old one, rename. Foreign keys
-- (tickets.sold_by) are checked at commit, when `accounts` exists again.
PRAGMA defer_foreign_keys = on;

CREATE TABLE accounts_new (
  name          TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  role          TEXT NOT NULL CHECK (role IN ('admin', 'sales', 'gate')),
  secret_sha256 TEXT NOT NULL CHECK (length(secret_sha256) = 64),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  revoked_at    TEXT
) STRICT;

INSERT INTO accounts_new (name, role, secret_sha256, created_at, revoked_at)
  SELECT name, role, secret_sha256, created_at, revoked_at FROM accounts;

DROP TABLE accounts;
ALTER TABLE accounts_new RENAME TO accounts;
