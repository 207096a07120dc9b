// `npm run dev` says in one line which migrations it applied, read from
// wrangler's report (test/tools/fixtures/migrations-apply-output.txt: wrangler
// 4.86 applying all of migrations/ to a fresh local D1, about 400 lines).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { appliedMigrationNames, migrationSummary, ROOT } from "../../tools/lib/wrangler.mjs";

const FRESH = readFileSync(join(ROOT, "test", "tools", "fixtures", "migrations-apply-output.txt"), "utf8");
const UP_TO_DATE = "Resource location: local \n\nUse --remote if you want to access the remote instance.\n\n✅ No migrations to apply!\n";

describe("the migrations wrangler applied", () => {
  it("are the names of its 'to be applied' table, once each, in order", () => {
    const names = appliedMigrationNames(FRESH);
    assert.ok(FRESH.split("\n").length > 300);
    assert.deepEqual(names.slice(0, 3), ["0001_accounts.sql", "0002_special_events.sql", "0003_museum_hours.sql"]);
    assert.equal(names.length, 12);
    assert.equal(new Set(names).size, names.length);
  });

  it("are none when it had nothing to apply", () => {
    assert.deepEqual(appliedMigrationNames(UP_TO_DATE), []);
    assert.equal(migrationSummary([]), null);
  });

  it("fit one line", () => {
    const line = migrationSummary(appliedMigrationNames(FRESH));
    assert.equal(line, "applied 12 migrations to the local database: 0001_accounts.sql … 0012_orders.sql");
    assert.equal(migrationSummary(["0013_x.sql"]), "applied 1 migration to the local database: 0013_x.sql");
  });

  it("the fixture still covers migrations/ from its start (a report of today's wrangler)", () => {
    const files = readdirSync(join(ROOT, "migrations")).filter((f) => f.endsWith(".sql")).sort();
    assert.deepEqual(appliedMigrationNames(FRESH), files.slice(0, 12));
  });
});
