// The categories feature's table (ticket_categories): every statement on it,
// and the read fragments other features put in theirs.
import sql, { type Sql } from "sql-template-tag";

/** The default category's id (an SQL expression): what a purchase naming no category is. */
export const defaultCategoryId: Sql = sql`(SELECT category_id FROM ticket_categories WHERE is_default = 1)`;
