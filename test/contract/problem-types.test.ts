// Every problem type the service can answer is documented: in the README's
// error table (for people), in the served OpenAPI document (for clients that
// switch on `type`), and in the client README's problem table, which
// `npm run client:generate` writes from that document (and which must be
// what the document served now gives). Sources are read through Vite
// (`import.meta.glob` with `?raw`), since workerd has no file system.
import { describe, expect, it } from "vitest";
import { PROBLEM_TABLE_END, PROBLEM_TABLE_START, problemTable } from "../../clients/typescript/generator/client-document.mjs";
import { PROBLEM_TYPES } from "../../src/http/problem";
import { api } from "../support/helpers";

const README = Object.values(import.meta.glob<string>("../../README.md", { query: "?raw", import: "default", eager: true }))[0]!;
const CLIENT_README = Object.values(
  import.meta.glob<string>("../../clients/typescript/README.md", { query: "?raw", import: "default", eager: true }),
)[0]!;
const SOURCES = import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true });

/** The rows of the README's "## Errors" table. */
function errorTable(): string {
  const section = README.split(/^## /m).find((part) => part.startsWith("Errors\n"));
  if (!section) throw new Error("README.md has no ## Errors section");
  return section
    .split("\n")
    .filter((line) => /^\| \d{3} \|/.test(line))
    .join("\n");
}

/** The lines between the client README's problem table markers. */
function clientProblemTable(): string {
  const start = CLIENT_README.indexOf(PROBLEM_TABLE_START);
  const end = CLIENT_README.indexOf(PROBLEM_TABLE_END);
  if (start === -1 || end < start) throw new Error("clients/typescript/README.md has no problem table markers");
  return CLIENT_README.slice(start + PROBLEM_TABLE_START.length, end).trim();
}

const TYPES = Object.values(PROBLEM_TYPES);

describe("problem types", () => {
  it("the README's error table has rows to check", () => {
    expect(errorTable().split("\n").length).toBeGreaterThanOrEqual(10);
  });

  const tables = [
    ["the README's error table", errorTable],
    ["the client README's problem table", clientProblemTable],
  ] as const;
  it.each(tables.flatMap(([name, table]) => TYPES.map((type) => [type, name, table] as const)))("%s is in %s", (type, _, table) => {
    expect(table()).toContain(`\`${type}\``);
  });

  it("the client README's problem table is the one the served document gives (else run `npm run client:generate`)", async () => {
    const document = (await (await api("/v1.1/openapi.json", { as: null })).json()) as Record<string, unknown>;
    expect(clientProblemTable()).toBe(problemTable(document));
  });

  it("every one is in the served OpenAPI document", async () => {
    const document = await (await api("/v1.1/openapi.json", { as: null })).text();
    expect(TYPES.filter((type) => !document.includes(type))).toEqual([]);
  });

  it("the service answers no problem type outside PROBLEM_TYPES", () => {
    const named = new Set(Object.values(SOURCES).flatMap((source) => source.match(/\/problems\/[a-z-]+/g) ?? []));
    expect([...named].filter((type) => !(TYPES as string[]).includes(type))).toEqual([]);
  });
});
