-- Accounts that may call the API. The secret is a ≥128-bit random token shown
-- once at creation; only its SHA-256 is stored.
CREATE TABLE accounts (
  name          TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  role          TEXT NOT NULL CHECK (role IN ('admin', 'sales')),
  secret_sha256 TEXT NOT NULL CHECK (length(secret_sha256) = 64),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  revoked_at    TEXT
) STRICT;
