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

/** A client's window as a login attempt left it: its count, when it started (Unix ms), the time left in it. */
export type LoginWindow = { failures: number; window_start: number; retry_after_ms: number };

/**
 * A client's login attempts, counted in windows of `windowMs` from the first
 * one; at most `budget` are counted in a window.
 */
export type LoginWindowScope = { clientKey: string; windowMs: number; nowMs: number; budget: number };

/**
 * Counts a login attempt before its password is checked, in one atomic
 * upsert: a client without a current window starts one now with 1; a client
 * whose window holds fewer than `budget` gets one more; a full window is left
 * as it is. So `failures` is the client's failed logins plus the attempts
 * being checked (a correct one is taken back: `forgiveLoginAttempt`). Two
 * steps for one batch: the upsert reads whether it counted the attempt, the
 * read after it the window.
 */
export function countLoginAttempt(db: Db, w: LoginWindowScope): [Step<boolean>, Step<LoginWindow>] {
  const passed = sql`login_failures.window_start <= ${w.nowMs} - ${w.windowMs}`;
  return [
    step(
      db,
      sql`INSERT INTO login_failures (client_key, window_start, failures) VALUES (${w.clientKey}, ${w.nowMs}, 1)
          ON CONFLICT (client_key) DO UPDATE
             SET failures = CASE WHEN ${passed} THEN 1 ELSE login_failures.failures + 1 END,
                 window_start = CASE WHEN ${passed} THEN ${w.nowMs} ELSE login_failures.window_start END
           WHERE ${passed} OR login_failures.failures < ${w.budget}
          RETURNING 1 AS counted`,
      (result) => result.results.length === 1,
    ),
    step(
      db,
      sql`SELECT failures, window_start, window_start + ${w.windowMs} - ${w.nowMs} AS retry_after_ms
            FROM login_failures WHERE client_key = ${w.clientKey}`,
      (result) => read.first<LoginWindow>()(result)!,
    ),
  ];
}

/**
 * Takes back one counted attempt of the window that started at
 * `windowStart` (a correct password); a window left without attempts is
 * deleted. Two statements for one batch; a later window is left alone.
 */
export function forgiveLoginAttempt(db: Db, w: { clientKey: string; windowStart: number }): [Step<number>, Step<number>] {
  const window = sql`client_key = ${w.clientKey} AND window_start = ${w.windowStart}`;
  return [
    step(db, sql`DELETE FROM login_failures WHERE ${window} AND failures <= 1`, read.changes),
    step(db, sql`UPDATE login_failures SET failures = failures - 1 WHERE ${window}`, read.changes),
  ];
}

/** Forgets the windows that started at or before `before` (Unix ms); reads how many. */
export function deleteLoginWindowsBefore(db: Db, before: number): Step<number> {
  return step(db, sql`DELETE FROM login_failures WHERE window_start <= ${before}`, read.changes);
}
