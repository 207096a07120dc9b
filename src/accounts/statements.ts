// The accounts feature's tables (accounts, login_failures): every statement on them.
import sql from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import { SQL_NOW } from "../platform/sql";
import type { AccountRole } from "./schemas";

export type AccountCredentialRow = {
  name: string;
  role: AccountRole;
  secret_sha256: string;
};

/** An active (not revoked) account's stored credential, or null. */
export function selectActiveAccountCredential(db: Db, name: string): Step<AccountCredentialRow | null> {
  return step(
    db,
    sql`SELECT name, role, secret_sha256 FROM accounts WHERE name = ${name} AND revoked_at IS NULL`,
    read.first<AccountCredentialRow>(),
  );
}

/** An account as the operator's tool lists it (never its secret's hash). */
type AccountRow = { name: string; role: AccountRole; created_at: string; revoked_at: string | null };

/** A new account: its name, role and the lower-case hex SHA-256 of its secret (what `sha256Hex` of platform/crypto.ts gives). */
type NewAccount = { name: string; role: AccountRole; secretSha256: string };

const ACCOUNT_COLUMNS = sql`name, role, created_at, revoked_at`;

/**
 * Creates an account; an existing name stays as it is. Reads the account created, or null when the name is taken.
 * @public (used by the tools, which bundle this file)
 */
export function insertAccount(db: Db, account: NewAccount): Step<AccountRow | null> {
  return step(
    db,
    sql`INSERT INTO accounts (name, role, secret_sha256) VALUES (${account.name}, ${account.role}, ${account.secretSha256})
        ON CONFLICT (name) DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
    read.first<AccountRow>(),
  );
}

/**
 * Gives the account `name` the role and secret of `account` and lifts its
 * revocation, creating it when there is none. Reads the account as written.
 * @public (used by the tools, which bundle this file)
 */
export function upsertAccount(db: Db, account: NewAccount): Step<AccountRow> {
  return step(
    db,
    sql`INSERT INTO accounts (name, role, secret_sha256) VALUES (${account.name}, ${account.role}, ${account.secretSha256})
        ON CONFLICT (name) DO UPDATE SET role = excluded.role, secret_sha256 = excluded.secret_sha256, revoked_at = NULL
        RETURNING ${ACCOUNT_COLUMNS}`,
    (result) => read.first<AccountRow>()(result)!,
  );
}

/**
 * Gives an active account a new secret (its hash); reads the account, or null when there is no active one of that name.
 * @public (used by the tools, which bundle this file)
 */
export function setAccountSecret(db: Db, name: string, secretSha256: string): Step<AccountRow | null> {
  return step(
    db,
    sql`UPDATE accounts SET secret_sha256 = ${secretSha256} WHERE name = ${name} AND revoked_at IS NULL
        RETURNING ${ACCOUNT_COLUMNS}`,
    read.first<AccountRow>(),
  );
}

/**
 * Revokes an active account (its requests get 401 from then on); reads it, or null when there is no active one of that name.
 * @public (used by the tools, which bundle this file)
 */
export function revokeAccount(db: Db, name: string): Step<AccountRow | null> {
  return step(
    db,
    sql`UPDATE accounts SET revoked_at = ${SQL_NOW} WHERE name = ${name} AND revoked_at IS NULL RETURNING ${ACCOUNT_COLUMNS}`,
    read.first<AccountRow>(),
  );
}

/**
 * Every account by name, revoked or not (only the one named `name`, when given).
 * @public (used by the tools, which bundle this file)
 */
export function selectAccounts(db: Db, name?: string): Step<AccountRow[]> {
  return step(
    db,
    sql`SELECT ${ACCOUNT_COLUMNS} FROM accounts ${name === undefined ? sql`` : sql`WHERE name = ${name}`} ORDER BY name`,
    read.rows<AccountRow>(),
  );
}

/** A client's failures in its current window, and the time left in it. */
export type LoginWindow = { failures: number; retry_after_ms: number };

/** A client's failed logins, counted in windows of `windowMs` from its first failure. */
export type LoginWindowScope = { clientKey: string; windowMs: number; nowMs: number };

/**
 * The client's current window while it has failed logins in a window that
 * has not passed (`retry_after_ms` is the time left), else null. A
 * primary-key lookup, meant to travel in the account lookup's batch.
 */
export function selectLoginWindow(db: Db, w: LoginWindowScope): Step<LoginWindow | null> {
  return step(
    db,
    sql`SELECT failures, window_start + ${w.windowMs} - ${w.nowMs} AS retry_after_ms FROM login_failures
         WHERE client_key = ${w.clientKey} AND window_start > ${w.nowMs} - ${w.windowMs}`,
    read.first<LoginWindow>(),
  );
}

/**
 * The same read at the primary: a no-op update with RETURNING, since a write
 * is never answered by a read replica that may lag behind a burst of failures.
 */
export function selectLoginWindowAtPrimary(db: Db, w: LoginWindowScope): Step<LoginWindow | null> {
  return step(
    db,
    sql`UPDATE login_failures SET failures = failures
         WHERE client_key = ${w.clientKey} AND window_start > ${w.nowMs} - ${w.windowMs}
        RETURNING failures, window_start + ${w.windowMs} - ${w.nowMs} AS retry_after_ms`,
    read.first<LoginWindow>(),
  );
}

/**
 * Counts one failed login and reads the count, in one atomic upsert: a
 * client without a current window starts one now with 1 failure; otherwise
 * its count goes up.
 */
export function countLoginFailure(db: Db, w: LoginWindowScope): Step<LoginWindow> {
  const passed = sql`login_failures.window_start <= ${w.nowMs} - ${w.windowMs}`;
  return step(
    db,
    sql`INSERT INTO login_failures (client_key, window_start, failures) VALUES (${w.clientKey}, ${w.nowMs}, 1)
        ON CONFLICT (client_key) DO UPDATE
           SET failures = CASE WHEN ${passed} THEN 1 ELSE login_failures.failures + 1 END,
               window_start = CASE WHEN ${passed} THEN ${w.nowMs} ELSE login_failures.window_start END
        RETURNING failures, window_start + ${w.windowMs} - ${w.nowMs} AS retry_after_ms`,
    (result) => read.first<LoginWindow>()(result)!,
  );
}

/** Forgets the windows that started at or before `before` (Unix ms); reads how many. */
export function deleteLoginWindowsBefore(db: Db, before: number): Step<number> {
  return step(db, sql`DELETE FROM login_failures WHERE window_start <= ${before}`, read.changes);
}
