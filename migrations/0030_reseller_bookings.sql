-- Resellers (docs/octo.md): API keys of sales accounts, and what an order
-- sold through the OCTO booking standard records beyond a web shop's.

-- A reseller's API key (`Authorization: Bearer <key>`) belongs to a sales
-- account: its requests are that account's. Only the key's SHA-256 is
-- stored (a key is 192 random bits, shown once); key_id names it for the
-- operator's tool (list, revoke). A revoked key, or one of a revoked
-- account, is refused.
CREATE TABLE api_keys (
  key_id       TEXT PRIMARY KEY CHECK (length(key_id) BETWEEN 1 AND 32 AND key_id NOT GLOB '*[^a-z0-9-]*'),
  account_name TEXT NOT NULL REFERENCES accounts (name),
  key_sha256   TEXT NOT NULL UNIQUE CHECK (length(key_sha256) = 64),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  revoked_at   TEXT
) STRICT;

CREATE INDEX api_keys_by_account ON api_keys (account_name);

-- Orders (a reseller's booking is an order, its uuid the orderId):
--   confirmation_code the order's own code (OCTO's supplierReference), unique
--   buyer_details     what the seller gave of the buyer beyond the e-mail and
--                     phone its tickets carry (names, country, locales, notes), JSON
--   notes             the seller's notes on the order
--   confirmed_at      when it was sold (a held order: when its hold was confirmed)
--   updated_at        when its row last changed
--   former_lines_of   a held order whose lines are changed keeps its id and
--                     takes new lines; its former tickets move to a new order,
--                     released (their places given back in the same batch),
--                     that names the order they were lines of
ALTER TABLE orders ADD COLUMN confirmation_code TEXT;
CREATE UNIQUE INDEX orders_by_confirmation_code ON orders (confirmation_code) WHERE confirmation_code IS NOT NULL;
ALTER TABLE orders ADD COLUMN buyer_details TEXT CHECK (buyer_details IS NULL OR json_valid(buyer_details));
ALTER TABLE orders ADD COLUMN notes TEXT;
ALTER TABLE orders ADD COLUMN confirmed_at TEXT;
ALTER TABLE orders ADD COLUMN updated_at TEXT;
ALTER TABLE orders ADD COLUMN former_lines_of TEXT REFERENCES orders (order_id);

-- Orders sold before: confirmed when they were made.
UPDATE orders SET confirmed_at = created_at WHERE status = 'confirmed';
