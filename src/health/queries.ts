import type { Db } from "../platform/batch";

/** Throws when the database does not answer. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.prepare("SELECT 1").first();
}
