// The categories feature's table (ticket_categories): every statement on it,
// and the read fragments other features put in theirs.
import sql, { join, raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import { toCents } from "../platform/money";
import { SQL_NOW } from "../platform/sql";
import type { CategoryInput, UnitType } from "./schemas";

/** The default category's id (an SQL expression): what a purchase naming no category is. */
export const defaultCategoryId: Sql = sql`(SELECT category_id FROM ticket_categories WHERE is_default = 1)`;

/** The category a line names (an SQL expression): the one given, or the default. */
export function categoryOf(categoryId: string | undefined): Sql {
  return categoryId === undefined ? defaultCategoryId : sql`${categoryId}`;
}

/** True while `categoryId` (an SQL expression) names a category that is not retired. */
export function categoryOnSale(categoryId: Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM ticket_categories WHERE category_id = ${categoryId} AND retired_at IS NULL)`;
}

/** The general-admission price (cents) of the active category `categoryId` (an SQL expression); NULL for none. */
export function categoryPrice(categoryId: Sql): Sql {
  return sql`(SELECT price_cents FROM ticket_categories WHERE category_id = ${categoryId} AND retired_at IS NULL)`;
}

/** True when the category `categoryId` (an SQL expression) is sold only with a companion. */
export function isAccompanied(categoryId: Sql): Sql {
  return sql`coalesce((SELECT accompanied FROM ticket_categories WHERE category_id = ${categoryId}), 0) = 1`;
}

/** True when one of `categoryIds` (SQL expressions) names a category that is not accompanied: a companion's. */
export function anyCompanionCategory(categoryIds: readonly Sql[]): Sql {
  if (categoryIds.length === 0) return sql`0`;
  return sql`EXISTS (SELECT 1 FROM ticket_categories WHERE category_id IN (${join(categoryIds)}) AND accompanied = 0)`;
}

/** The name of the category `categoryId` (an SQL expression, e.g. a column), retired or not. */
export function categoryName(categoryId: Sql): Sql {
  return sql`(SELECT name FROM ticket_categories WHERE category_id = ${categoryId})`;
}

/** A category on sale and a price of it (cents), as `pricesOnSale` lists it. */
export type CategoryPrice = { category: string; name: string; priceCents: number };

/**
 * The categories on sale, by id, each with the price `priceOf` gives it (an
 * SQL expression of the category id), as one JSON array of `CategoryPrice`.
 */
export function pricesOnSale(priceOf: (categoryId: Sql) => Sql): Sql {
  return sql`(SELECT json_group_array(json_object('category', c.category_id, 'name', c.name, 'priceCents', ${priceOf(raw("c.category_id"))}))
    FROM (SELECT category_id, name FROM ticket_categories WHERE retired_at IS NULL ORDER BY category_id) c)`;
}

export type CategoryRow = {
  category_id: string;
  name: string;
  price_cents: number;
  accompanied: 0 | 1;
  is_default: 0 | 1;
  unit_type: UnitType;
  retired_at: string | null;
};

const CATEGORY_ROW = sql`category_id, name, price_cents, accompanied, is_default, unit_type, retired_at`;

/** The categories by id: the active ones, and the retired ones too with `includeRetired`. */
export function selectCategories(db: Db, includeRetired: boolean): Step<CategoryRow[]> {
  return step(
    db,
    sql`SELECT ${CATEGORY_ROW} FROM ticket_categories WHERE ${includeRetired} OR retired_at IS NULL ORDER BY category_id`,
    read.rows<CategoryRow>(),
  );
}

/** The category `categoryId`, retired or not, or null. */
export function selectCategory(db: Db, categoryId: string): Step<CategoryRow | null> {
  return step(db, sql`SELECT ${CATEGORY_ROW} FROM ticket_categories WHERE category_id = ${categoryId}`, read.first<CategoryRow>());
}

/** True when the category `categoryId` exists and is the default. */
export function isDefaultCategory(categoryId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM ticket_categories WHERE category_id = ${categoryId} AND is_default = 1)`;
}

/**
 * The statements that create or replace a category (and bring a retired one
 * back). `default: true` takes the default from the former one; a missing
 * `default` leaves it as it was (not the default, on create).
 */
export function upsertCategory(db: Db, categoryId: string, input: CategoryInput): Step<void>[] {
  const makeDefault = input.default === true;
  const steps: Step<void>[] = [];
  if (makeDefault) {
    steps.push(
      step(db, sql`UPDATE ticket_categories SET is_default = 0 WHERE is_default = 1 AND category_id <> ${categoryId}`, read.nothing),
    );
  }
  const isDefault = input.default === undefined ? null : input.default ? 1 : 0;
  steps.push(
    step(
      db,
      sql`INSERT INTO ticket_categories (category_id, name, price_cents, accompanied, is_default, unit_type)
          VALUES (${categoryId}, ${input.name}, ${toCents(input.price)}, ${input.accompanied ? 1 : 0},
                  ${isDefault ?? 0}, ${input.unitType})
          ON CONFLICT (category_id) DO UPDATE
             SET name = excluded.name, price_cents = excluded.price_cents, accompanied = excluded.accompanied,
                 unit_type = excluded.unit_type, retired_at = NULL,
                 is_default = coalesce(${isDefault}, ticket_categories.is_default)`,
      read.nothing,
    ),
  );
  return steps;
}

/** Retires the category `categoryId` unless it is the default (already retired: unchanged). */
export function markCategoryRetired(db: Db, categoryId: string): Step<void> {
  return step(
    db,
    sql`UPDATE ticket_categories SET retired_at = coalesce(retired_at, ${SQL_NOW})
         WHERE category_id = ${categoryId} AND is_default = 0`,
    read.nothing,
  );
}
