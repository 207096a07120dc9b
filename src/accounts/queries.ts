import type { Db } from "../platform/batch";
import type { AccountRole } from "./schemas";

export type AccountCredentialRow = {
  name: string;
  role: AccountRole;
  secret_sha256: string;
};

/** The statement reading an active account's credential (at most one row), for a caller's batch. */
export function selectActiveAccountCredential(db: Db, name: string) {
  return db
    .prepare(
      "SELECT name, role, secret_sha256 FROM accounts WHERE name = ?1 AND revoked_at IS NULL",
    )
    .bind(name);
}

/** The stored credential of an active (not revoked) account, or null. */
export async function findActiveAccountCredential(
  db: Db,
  name: string,
): Promise<AccountCredentialRow | null> {
  return selectActiveAccountCredential(db, name).first<AccountCredentialRow>();
}
