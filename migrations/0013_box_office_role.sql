-- A fourth role, `box-office` (staffed tills, customer service): what `sales`
-- may, on every ticket and order whoever sold it. The table is rebuilt as in
-- 0008_gate_role.sql (SQLite cannot change a CHECK constraint in place), with
-- foreign keys (tickets.sold_by, orders.sold_by, admissions.gate) deferred
-- to the commit, when the rows put back satisfy them again.
PRAGMA defer_foreign_keys = on;

CREATE TABLE accounts_copy AS SELECT name, role, secret_sha256, created_at, revoked_at FROM accounts;

DROP TABLE accounts;

CREATE TABLE accounts (
  name          TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  role          TEXT NOT NULL CHECK (role IN ('admin', 'sales', 'box-office', 'gate')),
  secret_sha256 TEXT NOT NULL CHECK (length(secret_sha256) = 64),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  revoked_at    TEXT
) STRICT;

INSERT INTO accounts (name, role, secret_sha256, created_at, revoked_at)
  SELECT name, role, secret_sha256, created_at, revoked_at FROM accounts_copy;

DROP TABLE accounts_copy;
