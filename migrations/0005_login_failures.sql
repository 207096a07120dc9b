-- Failed Basic-auth logins per client (CF-Connecting-IP; an IPv6 client by its
-- /64), for the login throttle. One row per client: its current window began
-- with its first failure (window_start, Unix milliseconds) and counts the
-- failures since. A client with `failures` at the budget is refused (429)
-- until window_start + window. Successful logins never write here. The Cron
-- Trigger deletes rows whose window has passed.
CREATE TABLE login_failures (
  client_key   TEXT PRIMARY KEY CHECK (length(client_key) BETWEEN 1 AND 64),
  window_start INTEGER NOT NULL,
  failures     INTEGER NOT NULL CHECK (failures >= 1)
) STRICT, WITHOUT ROWID;

CREATE INDEX login_failures_by_window ON login_failures (window_start);
