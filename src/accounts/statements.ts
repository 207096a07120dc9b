// The accounts feature's tables (accounts, login_failures, api_keys): every statement on them.
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

/** The active account an API key belongs to: the key is not revoked, nor is its account. */
export type ApiKeyAccountRow = { key_id: string; name: string; role: AccountRole };

/** The active account whose active API key has the SHA-256 `keySha256` (lower-case hex), or null. */
export function selectApiKeyAccount(db: Db, keySha256: string): Step<ApiKeyAccountRow | null> {
  return step(
    db,
    sql`SELECT k.key_id, a.name, a.role FROM api_keys k JOIN accounts a ON a.name = k.account_name
         WHERE k.key_sha256 = ${keySha256} AND k.revoked_at IS NULL AND a.revoked_at IS NULL`,
    read.first<ApiKeyAccountRow>(),
  );
}

/** An API key as the operator's tool lists it (never its hash). */
type ApiKeyRow = { key_id: string; account_name: string; created_at: string; revoked_at: string | null };

const API_KEY_COLUMNS = sql`key_id, account_name, created_at, revoked_at`;

/**
 * Gives the active sales account `accountName` (a reseller) the API key
 * `keyId` with the hash `keySha256`; an existing key id is left as it is.
 * Reads the key written, or null (no such active sales account, or the id is taken).
 * @public (used by the tools, which bundle this file)
 */
export function insertApiKey(db: Db, key: { keyId: string; accountName: string; keySha256: string }): Step<ApiKeyRow | null> {
  return step(
    db,
    sql`INSERT INTO api_keys (key_id, account_name, key_sha256)
        SELECT ${key.keyId}, name, ${key.keySha256} FROM accounts WHERE name = ${key.accountName} AND role = 'sales' AND revoked_at IS NULL
        ON CONFLICT (key_id) DO NOTHING RETURNING ${API_KEY_COLUMNS}`,
    read.first<ApiKeyRow>(),
  );
}

/**
 * Gives the key `keyId` the account and hash given and lifts its revocation,
 * creating it when there is none (the local dev key). Reads it as written.
 * @public (used by the tools, which bundle this file)
 */
export function upsertApiKey(db: Db, key: { keyId: string; accountName: string; keySha256: string }): Step<ApiKeyRow> {
  return step(
    db,
    sql`INSERT INTO api_keys (key_id, account_name, key_sha256) VALUES (${key.keyId}, ${key.accountName}, ${key.keySha256})
        ON CONFLICT (key_id) DO UPDATE SET account_name = excluded.account_name, key_sha256 = excluded.key_sha256, revoked_at = NULL
        RETURNING ${API_KEY_COLUMNS}`,
    (result) => read.first<ApiKeyRow>()(result)!,
  );
}

/**
 * Revokes an active API key (its requests get 401 from then on); reads it, or null when there is no active key of that id.
 * @public (used by the tools, which bundle this file)
 */
export function revokeApiKey(db: Db, keyId: string): Step<ApiKeyRow | null> {
  return step(
    db,
    sql`UPDATE api_keys SET revoked_at = ${SQL_NOW} WHERE key_id = ${keyId} AND revoked_at IS NULL RETURNING ${API_KEY_COLUMNS}`,
    read.first<ApiKeyRow>(),
  );
}

/**
 * Every API key by account and id, revoked or not (only the one `keyId`, when given).
 * @public (used by the tools, which bundle this file)
 */
export function selectApiKeys(db: Db, keyId?: string): Step<ApiKeyRow[]> {
  return step(
    db,
    sql`SELECT ${API_KEY_COLUMNS} FROM api_keys ${keyId === undefined ? sql`` : sql`WHERE key_id = ${keyId}`} ORDER BY account_name, key_id`,
    read.rows<ApiKeyRow>(),
  );
}
