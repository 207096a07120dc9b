// Accounts as the scripts create them: a name, a role and the SHA-256 of a
// random secret (the secret itself is never stored), written through the
// accounts feature's builders (account, seed, the end-to-end checks, the bench).
import { createHash, randomBytes } from "node:crypto";
import { UsageError } from "./cli.mjs";
import { recordingDb, sqlScript, statements } from "./statements.mjs";

/** Account names: what accounts.name accepts and what Basic auth can carry (no ':'). */
export const ACCOUNT_NAME = /^[a-z0-9._-]{1,64}$/;
export const ACCOUNT_ROLES = ["admin", "sales", "box-office", "gate"];

/** Lower-case hex SHA-256 of a UTF-8 string, as the Worker computes it. */
export function sha256Hex(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A new account secret: 192 random bits, URL-safe. */
export function newSecret() {
  return randomBytes(24).toString("base64url");
}

/** A new API key's id: what the operator's tool names it by (never part of the key). */
export function newKeyId() {
  return randomBytes(4).toString("hex");
}

/** The Authorization header value of HTTP Basic credentials. */
export function basicAuthorization(name, secret) {
  return `Basic ${Buffer.from(`${name}:${secret}`, "utf8").toString("base64")}`;
}

/**
 * A new account as the accounts feature's builders take it (`insertAccount`,
 * `upsertAccount` of src/accounts/statements.ts): name and role checked here,
 * the secret as its SHA-256.
 */
export function newAccount({ name, role, secret }) {
  if (!ACCOUNT_NAME.test(name ?? "")) throw new UsageError(`invalid account name ${JSON.stringify(name)}`);
  if (!ACCOUNT_ROLES.includes(role)) throw new UsageError(`role must be one of ${ACCOUNT_ROLES.join(", ")}`);
  return { name, role, secretSha256: sha256Hex(secret) };
}

/**
 * The SQL that creates one account (`insertAccount`, rendered): an existing
 * name stays as it is, and the statement then returns no row.
 */
export function insertAccountSql(account) {
  return sqlScript([statements().accounts.insertAccount(recordingDb, newAccount(account))]);
}
