// Accounts as the scripts create them: a name, a role and the SHA-256 of a
// random secret (the secret itself is never stored). One INSERT for every
// script (account, seed, the end-to-end checks, the bench).
import { createHash, randomBytes } from "node:crypto";
import { UsageError } from "./cli.mjs";
import { sqlString } from "./sql.mjs";

/** Account names: what accounts.name accepts and what Basic auth can carry (no ':'). */
export const ACCOUNT_NAME = /^[a-z0-9._-]{1,64}$/;
export const ACCOUNT_ROLES = ["admin", "sales", "gate"];

/** Lower-case hex SHA-256 of a UTF-8 string, as the Worker computes it. */
export function sha256Hex(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A new account secret: 192 random bits, URL-safe. */
export function newSecret() {
  return randomBytes(24).toString("base64url");
}

/** The Authorization header value of HTTP Basic credentials. */
export function basicAuthorization(name, secret) {
  return `Basic ${Buffer.from(`${name}:${secret}`, "utf8").toString("base64")}`;
}

const ON_CONFLICT = {
  // A plain insert: a duplicate name is an error.
  fail: "",
  // `account create`: an existing name stays as it is (nothing is returned).
  keep: "\n  ON CONFLICT (name) DO NOTHING",
  // The seed of local accounts: role and secret as given, revocation lifted;
  // a row already so is not rewritten.
  update: `
  ON CONFLICT (name) DO UPDATE SET role = excluded.role, secret_sha256 = excluded.secret_sha256, revoked_at = NULL
  WHERE accounts.role IS NOT excluded.role OR accounts.secret_sha256 IS NOT excluded.secret_sha256 OR accounts.revoked_at IS NOT NULL`,
};

/**
 * The INSERT of one account with the SHA-256 of `secret`; name and role are
 * checked here. `onConflict`: "fail" | "keep" | "update"; `returning`: a
 * RETURNING clause's column list, if any.
 */
export function insertAccountSql({ name, role, secret, onConflict = "fail", returning }) {
  if (!ACCOUNT_NAME.test(name ?? "")) throw new UsageError(`invalid account name ${JSON.stringify(name)}`);
  if (!ACCOUNT_ROLES.includes(role)) throw new UsageError(`role must be one of ${ACCOUNT_ROLES.join(", ")}`);
  return `INSERT INTO accounts (name, role, secret_sha256) VALUES (${sqlString(name)}, ${sqlString(role)}, ${sqlString(sha256Hex(secret))})${ON_CONFLICT[onConflict]}${returning ? `\n  RETURNING ${returning}` : ""};`;
}
