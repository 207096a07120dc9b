// /healthz and the /v1.1 routes on a database whose migrations are not all
// applied. Each test takes something of the schema away (the migration
// records, a table, a column) and puts it back: storage is this file's own.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { EXPECTED_MIGRATIONS } from "../../src/platform/migrations";
import { api, expectFailureLogs, expectProblem, type Problem } from "../support/helpers";

const MIGRATION_FILES = Object.keys(import.meta.glob<string>("../../migrations/*.sql", { query: "?raw", import: "default", eager: true }))
  .map((path) => path.replace("../../migrations/", ""))
  .sort();

const NEWEST = MIGRATION_FILES.at(-1)!;

expectFailureLogs();

const restore: string[] = [];
afterEach(async () => {
  for (const sql of restore.splice(0).reverse()) await env.DB.prepare(sql).run();
});

/** Runs `sql` now and `undo` after the test. */
async function change(sql: string, undo: string) {
  await env.DB.prepare(sql).run();
  restore.push(undo);
}

type SchemaProblem = Problem & { checks: { database: { status: string }; schema: { status: string; expected: string; applied: string | null; pending: string[] } } };

async function expectSchemaBehind(res: Response): Promise<SchemaProblem> {
  const problem = (await expectProblem(res, 503)) as SchemaProblem;
  expect(problem.type).toBe("/problems/schema-behind");
  expect(problem.detail).toContain("npm run db:migrate:local");
  expect(problem.detail).toContain("wrangler d1 migrations apply DB --remote");
  return problem;
}

describe("the migrations the code expects", () => {
  it("are the files of migrations/, in order", () => {
    expect(MIGRATION_FILES.length).toBeGreaterThan(10);
    expect(EXPECTED_MIGRATIONS).toEqual(MIGRATION_FILES);
  });
});

describe("GET /healthz reports the schema", () => {
  it("200 with every migration applied: the newest expected and applied, none pending", async () => {
    const res = await api("/healthz", { as: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ok",
      checks: {
        database: { status: "ok" },
        schema: { status: "ok", expected: NEWEST, applied: NEWEST, pending: [] },
        configuration: { status: "ok", problems: [] },
      },
    });
  });

  it("503 schema-behind when the newest migration is not applied, naming it", async () => {
    await change(`DELETE FROM d1_migrations WHERE name = '${NEWEST}'`, `INSERT INTO d1_migrations (name) VALUES ('${NEWEST}')`);
    const res = await api("/healthz", { as: null });
    const problem = await expectSchemaBehind(res);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(problem.detail).toContain(`1 migration this service needs (${NEWEST})`);
    expect(problem.checks).toEqual({
      database: { status: "ok" },
      schema: { status: "behind", expected: NEWEST, applied: MIGRATION_FILES.at(-2), pending: [NEWEST] },
      configuration: { status: "ok", problems: [] },
    });
  });

  it("503 schema-behind listing every migration when none was ever applied", async () => {
    await change("ALTER TABLE d1_migrations RENAME TO d1_migrations_away", "ALTER TABLE d1_migrations_away RENAME TO d1_migrations");
    const problem = await expectSchemaBehind(await api("/healthz", { as: null }));
    expect(problem.checks.schema).toEqual({ status: "behind", expected: NEWEST, applied: null, pending: MIGRATION_FILES });
  });

  it("a migration applied beyond the expected ones (a rolled-back deploy) is no failure", async () => {
    await change("INSERT INTO d1_migrations (name) VALUES ('9999_later.sql')", "DELETE FROM d1_migrations WHERE name = '9999_later.sql'");
    const res = await api("/healthz", { as: null });
    expect(res.status).toBe(200);
    expect(((await res.json()) as SchemaProblem).checks.schema).toEqual({ status: "ok", expected: NEWEST, applied: "9999_later.sql", pending: [] });
  });
});

describe("a /v1.1 call on a database that lacks a table or a column", () => {
  it("503 schema-behind, naming neither the table nor the SQL, when a table is missing", async () => {
    await change("ALTER TABLE museum_weekly_hours RENAME TO museum_weekly_hours_away", "ALTER TABLE museum_weekly_hours_away RENAME TO museum_weekly_hours");
    const problem = await expectSchemaBehind(await api("/v1.1/museum-hours/schedule"));
    expect(JSON.stringify(problem)).not.toMatch(/museum_weekly_hours|no such|SQL/i);
  });

  it("503 schema-behind when the accounts table every login reads is missing", async () => {
    await change("ALTER TABLE accounts RENAME TO accounts_away", "ALTER TABLE accounts_away RENAME TO accounts");
    const problem = await expectSchemaBehind(await api("/v1.1/special-events"));
    expect(JSON.stringify(problem)).not.toMatch(/accounts|no such|SQL/i);
  });

  it("503 schema-behind when a column is missing", async () => {
    await change("ALTER TABLE special_events RENAME COLUMN price_cents TO price_away", "ALTER TABLE special_events RENAME COLUMN price_away TO price_cents");
    const problem = await expectSchemaBehind(await api("/v1.1/special-events"));
    expect(JSON.stringify(problem)).not.toMatch(/price|no such|SQL/i);
  });

  it("answers as before once the schema is back", async () => {
    expect((await api("/v1.1/special-events")).status).toBe(200);
    expect((await api("/healthz", { as: null })).status).toBe(200);
  });
});
