import type { Db } from "../platform/batch";
import { isD1SchemaBehind } from "../platform/d1-errors";

/**
 * The names of the migrations applied to the database, as wrangler (and the
 * tests' applyD1Migrations) record them in `d1_migrations`; none when that
 * table is missing (no migration was ever applied). Throws when the database
 * does not answer.
 */
export async function appliedMigrations(db: Db): Promise<string[]> {
  try {
    const { results } = await db.prepare("SELECT name FROM d1_migrations ORDER BY name").all<{ name: string }>();
    return results.map((row) => row.name);
  } catch (error) {
    if (isD1SchemaBehind(error)) return [];
    throw error;
  }
}
