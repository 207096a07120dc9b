import type { Db } from "../env";
import type { AccountRole } from "./schemas";

export type AccountCredentialRow = {
  name: string;
  role: AccountRole;
  secret_sha256: string;
};

/** The stored credential of an active (not revoked) account, or null. */
export async function findActiveAccountCredential(
  db: Db,
  name: string,
): Promise<AccountCredentialRow | null> {
  return db
    .prepare(
      "SELECT name, role, secret_sha256 FROM accounts WHERE name = ?1 AND revoked_at IS NULL",
    )
    .bind(name)
    .first<AccountCredentialRow>();
}
