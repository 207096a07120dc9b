// The categories feature's table (ticket_categories): every statement on it,
// and the read fragments other features put in theirs.
import sql, { type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";

/** The default category's id (an SQL expression): what a purchase naming no category is. */
export const defaultCategoryId: Sql = sql`(SELECT category_id FROM ticket_categories WHERE is_default = 1)`;

/** The active (not retired) categories' ids and names, by id: what a gate prints and judges by. */
export function selectCategoryNames(db: Db): Step<{ category_id: string; name: string }[]> {
  return step(
    db,
    sql`SELECT category_id, name FROM ticket_categories WHERE retired_at IS NULL ORDER BY category_id`,
    read.rows<{ category_id: string; name: string }>(),
  );
}
