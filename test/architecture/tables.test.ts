// Each feature owns its tables (docs/architecture.md): a table's name appears
// in SQL in its owner's statements only: one file, or a folder of files by
// concern (tickets/statements/). Other features put the owner's builders and
// read fragments in their batches and statements.
import { describe, expect, it } from "vitest";

const SOURCES = import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true });
const modules = new Map(Object.entries(SOURCES).map(([path, source]) => [path.replace("../../src/", ""), source]));

/** Every table of migrations/ → the one module, or the one folder (ending in `/`), whose SQL may name it. */
const OWNER: Record<string, string> = {
  accounts: "accounts/statements.ts",
  login_failures: "accounts/statements.ts",
  api_keys: "accounts/statements.ts",
  special_events: "events/statements.ts",
  special_event_dates: "events/statements.ts",
  special_event_category_prices: "events/statements.ts",
  museum_weekly_hours: "hours/statements.ts",
  museum_hours_exceptions: "hours/statements.ts",
  ticket_categories: "categories/statements.ts",
  tickets: "tickets/statements/",
  admissions: "admission/statements.ts",
  offline_scans: "admission/statements.ts",
  ticket_places: "tickets/statements/",
  ticket_revocations: "tickets/statements/",
  orders: "sales/statements.ts",
  batch_guards: "platform/batch.ts",
  idempotency_keys: "idempotency/statements.ts",
  webhook_subscriptions: "webhooks/statements.ts",
  webhook_deliveries: "webhooks/statements.ts",
};

// Where SQL names a table: after FROM, JOIN, INTO, UPDATE, TABLE or ON (an index or trigger).
const TABLE_REFERENCE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE|ON)\s+([a-z_]+)\b/g;

/** True when `module` is the owner `owner` or, for a folder, one of its files. */
const ownedBy = (module: string, owner: string) => (owner.endsWith("/") ? module.startsWith(owner) : module === owner);

/** `module: table` for every reference to a table outside its owner. */
function foreignTableReferences(sources: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [module, source] of sources) {
    for (const match of source.matchAll(TABLE_REFERENCE)) {
      const table = match[1]!;
      if (table in OWNER && !ownedBy(module, OWNER[table]!)) found.push(`${module}: ${table}`);
    }
  }
  return [...new Set(found)];
}

describe("table ownership in src/", () => {
  it("reads the statements files (every owner exists and names its tables)", () => {
    for (const [table, owner] of Object.entries(OWNER)) {
      const sources = [...modules].filter(([module]) => ownedBy(module, owner)).map(([, source]) => source);
      expect(sources.join("\n"), owner).toMatch(new RegExp(`\\b(?:FROM|INTO|UPDATE)\\s+${table}\\b`));
    }
  });

  it("names a table in SQL only in its owner's statements file", () => {
    expect(foreignTableReferences(modules)).toEqual([]);
  });

  it("knows every table the migrations create", async () => {
    const migrations = import.meta.glob<string>("../../migrations/*.sql", { query: "?raw", import: "default", eager: true });
    // Applied in order: a table dropped and created again, or rebuilt under another name and renamed, is live.
    const live = new Set<string>();
    for (const path of Object.keys(migrations).sort()) {
      const statements = /(CREATE|DROP) TABLE (?:IF (?:NOT )?EXISTS )?([a-z_]+)|ALTER TABLE ([a-z_]+) RENAME TO ([a-z_]+)/g;
      for (const m of migrations[path]!.matchAll(statements)) {
        if (m[1] === "CREATE") live.add(m[2]!);
        else if (m[1] === "DROP") live.delete(m[2]!);
        else if (live.delete(m[3]!)) live.add(m[4]!);
      }
    }
    expect(live).toEqual(new Set(Object.keys(OWNER)));
  });
});

describe("no table in the tools' SQL", () => {
  // The scripts, the bench and their library write and read through the
  // builders (tools/lib/statements.mjs), never SQL of their own.
  const TOOLS = {
    ...import.meta.glob<string>("../../scripts/**/*.{mjs,js,ts}", { query: "?raw", import: "default", eager: true }),
    ...import.meta.glob<string>("../../bench/*.{mjs,js,ts}", { query: "?raw", import: "default", eager: true }),
    ...import.meta.glob<string>("../../tools/**/*.{mjs,js,ts,mts}", { query: "?raw", import: "default", eager: true }),
  };

  it("reads the tools", () => {
    expect(Object.keys(TOOLS)).toContain("../../scripts/seed.mjs");
    expect(Object.keys(TOOLS)).toContain("../../bench/seed.mjs");
  });

  it("names no table in SQL in scripts/, bench/ or tools/", () => {
    const tools = new Map(Object.entries(TOOLS).map(([path, source]) => [path.replace("../../", ""), source]));
    expect(foreignTableReferences(tools)).toEqual([]);
  });
});

describe("the check itself", () => {
  it("finds a table named in another feature's SQL, and not in prose", () => {
    const sources = new Map(
      Object.entries({
        "tickets/statements/rows.ts": "sql`SELECT 1 FROM tickets t JOIN special_events e ON e.event_id = t.event_id`",
        "events/statements.ts": "sql`SELECT name FROM special_events`",
        "hours/handlers.ts": "// tickets sold from the tickets table are kept",
        "tickets/follow.ts": "sql`UPDATE tickets SET admitted_at = NULL`",
      }),
    );
    expect(foreignTableReferences(sources)).toEqual(["tickets/statements/rows.ts: special_events", "tickets/follow.ts: tickets"]);
  });
});
