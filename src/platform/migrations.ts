/**
 * The migrations (migrations/*.sql, in order) this code needs applied to its
 * database; /healthz compares them with the ones D1 recorded. Add a file's
 * name here with the file: test/health/schema.test.ts fails until you do.
 */
export const EXPECTED_MIGRATIONS: readonly string[] = [
  "0001_accounts.sql",
  "0002_special_events.sql",
  "0003_museum_hours.sql",
  "0004_tickets.sql",
  "0005_login_failures.sql",
  "0006_idempotency_claim_token.sql",
  "0007_webhooks.sql",
  "0008_gate_role.sql",
  "0009_admissions.sql",
  "0010_webhook_sweep_by_age.sql",
  "0011_capacity.sql",
  "0012_orders.sql",
  "0013_box_office_role.sql",
  "0014_stranding_rule_in_one_place.sql",
  "0015_web_shop_sales.sql",
  "0016_offline_scans.sql",
  "0018_holds.sql",
  "0019_released_orders_recorded.sql",
  "0020_legacy_codes_and_entries.sql",
  "0024_places_and_holds_in_one_place.sql",
  "0030_reseller_bookings.sql",
];

/** What to run, said in every answer about a schema that is behind. */
export const APPLY_MIGRATIONS_HINT =
  "Apply the migrations: `npm run db:migrate:local` for the local database, `npx wrangler d1 migrations apply DB --remote` for a deployed one.";

/** The expected migrations that `applied` lacks, in order. */
export function pendingMigrations(applied: readonly string[]): string[] {
  const done = new Set(applied);
  return EXPECTED_MIGRATIONS.filter((name) => !done.has(name));
}
