// The categories' reads and writes. A change that would leave the default
// accompanied, retired or missing is refused by a guard in its own batch.
import { Batch, type Db, runStep } from "../platform/batch";
import { amountOf } from "../platform/money";
import { categoryNotFound, defaultCategoryConflict } from "./problems";
import type { Category, CategoryInput } from "./schemas";
import * as statements from "./statements";

function categoryOfRow(row: statements.CategoryRow): Category {
  return {
    categoryId: row.category_id,
    name: row.name,
    price: amountOf(row.price_cents),
    default: row.is_default === 1,
    accompanied: row.accompanied === 1,
    unitType: row.unit_type,
    ...(row.retired_at === null ? {} : { retired: true as const }),
  };
}

export async function listCategories(db: Db, includeRetired: boolean): Promise<Category[]> {
  return (await runStep(statements.selectCategories(db, includeRetired))).map(categoryOfRow);
}

const STAYS_DEFAULT = "The default category stays the default until another one is made the default.";
const NEVER_ACCOMPANIED = "The default category is never accompanied, so that a purchase naming no category always works.";

/** Whether `categoryId` is the default now (after a guard refused a batch: one more round trip). */
async function isDefaultNow(db: Db, categoryId: string): Promise<boolean> {
  return (await runStep(statements.selectCategory(db, categoryId)))?.is_default === 1;
}

/**
 * Creates or replaces a category (a retired one comes back), in one batch;
 * `created` when it did not exist. 409 default-category: `default: false` on
 * the default, or `accompanied` on the default or with `default: true`.
 */
export async function putCategory(db: Db, categoryId: string, input: CategoryInput): Promise<{ category: Category; created: boolean }> {
  if (input.accompanied && input.default === true) throw defaultCategoryConflict(NEVER_ACCOMPANIED);
  const batch = new Batch(db);
  const before = batch.add(statements.selectCategory(db, categoryId));
  const isDefault = statements.isDefaultCategory(categoryId);
  if (input.default === false) {
    batch.guard(isDefault, async () => ((await isDefaultNow(db, categoryId)) ? defaultCategoryConflict(STAYS_DEFAULT) : null));
  }
  if (input.accompanied) {
    batch.guard(isDefault, async () => ((await isDefaultNow(db, categoryId)) ? defaultCategoryConflict(NEVER_ACCOMPANIED) : null));
  }
  for (const step of statements.upsertCategory(db, categoryId, input)) batch.add(step);
  const after = batch.add(statements.selectCategory(db, categoryId));
  await batch.run();
  return { category: categoryOfRow(after.value!), created: before.value === null };
}

/** Retires a category (never deleted; sold tickets keep it). 404 unknown; 409 default-category for the default. */
export async function retireCategory(db: Db, categoryId: string): Promise<void> {
  const batch = new Batch(db);
  const before = batch.add(statements.selectCategory(db, categoryId));
  batch.guard(statements.isDefaultCategory(categoryId), async () =>
    (await isDefaultNow(db, categoryId)) ? defaultCategoryConflict("The default category cannot be retired; make another one the default first.") : null,
  );
  batch.add(statements.markCategoryRetired(db, categoryId));
  await batch.run();
  if (!before.value) throw categoryNotFound(categoryId);
}
