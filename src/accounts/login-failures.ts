import type { Db } from "../platform/batch";

/** How many failed logins a client may have in a window, and how long a window lasts. */
export type LoginFailurePolicy = {
  budget: number;
  windowMs: number;
};

/**
 * The statement that reads a client's current window: one row
 * `{ failures, retry_after_ms }` while it has failed logins in a window that
 * has not passed (retry_after_ms is the time left), none otherwise. A
 * primary-key lookup, meant to travel in the same batch as the account
 * lookup so that it costs no extra round trip.
 */
export function selectLoginWindow(db: Db, clientKey: string, policy: LoginFailurePolicy, nowMs: number) {
  return db
    .prepare(
      `SELECT failures, window_start + ?3 - ?2 AS retry_after_ms FROM login_failures
        WHERE client_key = ?1 AND window_start > ?2 - ?3`,
    )
    .bind(clientKey, nowMs, policy.windowMs);
}

/** A client's failures in its current window, and the time left in it. */
export type LoginWindow = { failures: number; retry_after_ms: number };

/**
 * The client's current window read at the primary, or null: a no-op update
 * with RETURNING, since a write is never answered by a read replica that may
 * lag behind a burst of failures. Only for a correct password from a client
 * with failures in its window.
 */
export function findLoginWindowAtPrimary(
  db: Db,
  clientKey: string,
  policy: LoginFailurePolicy,
  nowMs: number,
): Promise<LoginWindow | null> {
  return db
    .prepare(
      `UPDATE login_failures SET failures = failures
        WHERE client_key = ?1 AND window_start > ?2 - ?3
       RETURNING failures, window_start + ?3 - ?2 AS retry_after_ms`,
    )
    .bind(clientKey, nowMs, policy.windowMs)
    .first<LoginWindow>();
}

/**
 * Counts one failed login and returns the count, in one atomic upsert: a
 * client without a current window starts one now with 1 failure; otherwise
 * its count goes up. SQLite applies each upsert whole, so of any number of
 * simultaneous failures each sees its own count: exactly `budget` of them
 * see a count within the budget.
 */
export async function recordLoginFailure(
  db: Db,
  clientKey: string,
  policy: LoginFailurePolicy,
  nowMs: number,
): Promise<LoginWindow> {
  const row = await db
    .prepare(
      `INSERT INTO login_failures (client_key, window_start, failures) VALUES (?1, ?2, 1)
       ON CONFLICT (client_key) DO UPDATE
          SET failures = CASE WHEN login_failures.window_start <= ?2 - ?3 THEN 1 ELSE login_failures.failures + 1 END,
              window_start = CASE WHEN login_failures.window_start <= ?2 - ?3 THEN ?2 ELSE login_failures.window_start END
       RETURNING failures, window_start + ?3 - ?2 AS retry_after_ms`,
    )
    .bind(clientKey, nowMs, policy.windowMs)
    .first<LoginWindow>();
  return row!;
}

/** Forgets the windows that have passed (run by the Cron Trigger); returns how many. */
export async function purgeExpiredLoginFailures(db: Db, windowMs: number, nowMs: number = Date.now()): Promise<number> {
  const result = await db
    .prepare("DELETE FROM login_failures WHERE window_start <= ?1")
    .bind(nowMs - windowMs)
    .run();
  return result.meta.changes;
}

/** Ten failed logins per client per five minutes, unless configured otherwise. */
export const DEFAULT_LOGIN_FAILURE_POLICY: LoginFailurePolicy = { budget: 10, windowMs: 300_000 };

type PolicyEnv = { LOGIN_FAILURE_BUDGET?: string; LOGIN_FAILURE_WINDOW_SECONDS?: string };

function wholeNumber(value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || !/^\s*\d{1,9}\s*$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

/**
 * The policy from `LOGIN_FAILURE_BUDGET` (1–10000) and
 * `LOGIN_FAILURE_WINDOW_SECONDS` (1–86400). A variable that is missing or out
 * of range falls back to the default (10 per 300 s): a typo in the
 * configuration must not switch the throttle off, nor fail every request.
 */
export function loginFailurePolicy(env: PolicyEnv): LoginFailurePolicy {
  const budget = wholeNumber(env.LOGIN_FAILURE_BUDGET, 1, 10_000) ?? DEFAULT_LOGIN_FAILURE_POLICY.budget;
  const windowSeconds = wholeNumber(env.LOGIN_FAILURE_WINDOW_SECONDS, 1, 86_400);
  return { budget, windowMs: windowSeconds === undefined ? DEFAULT_LOGIN_FAILURE_POLICY.windowMs : windowSeconds * 1000 };
}
