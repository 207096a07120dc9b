-- A third role, `gate` (turnstiles and door scanners): it may only admit
-- tickets. SQLite cannot change a CHECK constraint in place, so the table is
-- rebuilt inside this migration: copy the rows aside, drop the table, create
-- it with the new CHECK under its own name, copy the rows back. Foreign keys
-- (tickets.sold_by) are deferred to the commit; the rows put back into
-- `accounts` satisfy them again. (Renaming a new table into place would not:
-- SQLite counts the dropped rows' references as violations, and only rows
-- inserted into the referenced table undo them.)
PRAGMA defer_foreign_keys = on;

CREATE TABLE accounts_copy AS SELECT name, role, secret_sha256, created_at, revoked_at FROM accounts;

DROP TABLE accounts;

CREATE TABLE accounts (
  name          TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  role          TEXT NOT NULL CHECK (role IN ('admin', 'sales', 'gate')),
  secret_sha256 TEXT NOT NULL CHECK (length(secret_sha256) = 64),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  revoked_at    TEXT
) STRICT;

INSERT INTO accounts (name, role, secret_sha256, created_at, revoked_at)
  SELECT name, role, secret_sha256, created_at, revoked_at FROM accounts_copy;

DROP TABLE accounts_copy;
