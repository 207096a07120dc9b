// The import rules of src/ (docs/architecture.md, "Imports"), checked on the
// import statements of every module: no cycles (between modules, and between
// units: no two features import each other), and every import between units
// is one this file allows. The sources are read at build time by Vite
// (`import.meta.glob` with `?raw`), since workerd has no file system.
import { describe, expect, it } from "vitest";

const SOURCES = import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true });

/** Module path relative to src/ (`tickets/sell.ts`) → its source. */
const modules = new Map(Object.entries(SOURCES).map(([path, source]) => [path.replace("../../src/", ""), source]));

/**
 * The unit a module belongs to: its folder under src/ (a feature, `http`,
 * `platform`, `middleware`, `configuration`), or the file itself at the top
 * (`app.ts`, `index.ts`, `env.ts`).
 */
function unitOf(module: string): string {
  return module.includes("/") ? module.slice(0, module.indexOf("/")) : module;
}

/**
 * What each unit may import from other units, from the bottom up: a unit's
 * name allows all of it, a module path only that module (another feature's
 * entry point). Imports inside a unit are free (but acyclic).
 */
const MAY_IMPORT: Record<string, string[]> = {
  "types": [],
  "platform": [],
  // The Worker's settings and secrets, parsed once: any unit may read them (the
  // museum's clock in its time zone too); what has no default is refused with a 503.
  "configuration": ["platform"],
  "accounts": ["env.ts", "configuration", "platform"],
  "env.ts": ["accounts/schemas.ts", "configuration", "platform/batch.ts"],
  "http": ["env.ts", "configuration", "platform"],
  "middleware": ["env.ts", "configuration", "platform", "http", "accounts"],
  // Idempotency-Keys: any feature's write may be made safe to retry with one.
  "idempotency": ["platform", "http"],
  // Ticket categories and their prices: what a sale prices a line by; its
  // routes are a feature's (validation, problems, roles).
  "categories": ["env.ts", "platform", "http", "middleware"],
  // A change's batch carries the tickets' part, handed in by app.ts (hours/followers.ts).
  "hours": ["env.ts", "configuration", "platform", "http", "middleware"],
  // The ticket itself (its row, status, places and what schedule changes do
  // to it) puts the events' and the hours' read fragments in its statements,
  // and takes its part in their changes (their followers.ts).
  "tickets": [
    "env.ts", "configuration", "platform", "http", "middleware",
    "hours/statements.ts", "hours/followers.ts", "events/statements.ts", "events/schemas.ts", "events/followers.ts",
    "categories/statements.ts",
  ],
  // Sales (tickets, orders, availability) write tickets through the tickets'
  // builders, under the sale's conditions; the image is pre-rendered after a sale.
  "sales": [
    "env.ts", "configuration", "platform", "http", "middleware", "idempotency",
    "hours/calendar.ts", "hours/statements.ts",
    "events/statements.ts", "events/schemas.ts", "events/problems.ts",
    "tickets/statements/sale.ts", "tickets/statements/holds.ts", "tickets/statements/places.ts", "tickets/statements/rows.ts",
    "tickets/statements/lines.ts", "tickets/statements/orders.ts",
    "tickets/schemas.ts", "tickets/status.ts", "tickets/access.ts", "tickets/currency.ts",
    "ticket-image/index.ts",
    // A line's category: its price, whether it is on sale, and whether it needs a companion.
    "categories/schemas.ts", "categories/statements.ts",
  ],
  // The image of a ticket, for whoever may see the ticket, and only once it is sold.
  "ticket-image": [
    "env.ts", "configuration", "platform", "http", "middleware",
    "tickets/statements/rows.ts", "tickets/schemas.ts", "tickets/problems.ts", "tickets/access.ts", "tickets/status.ts",
  ],
  // Admission checks a code's signature (ticket-image) and writes the admission;
  // the gate's configuration reads the hours and the category names.
  "admission": [
    "env.ts", "configuration", "platform", "http", "middleware", "idempotency",
    "hours/calendar.ts", "hours/statements.ts", "categories/statements.ts", "events/statements.ts", "events/schemas.ts",
    "tickets/statements/admission.ts", "tickets/statements/rows.ts",
    "tickets/schemas.ts", "tickets/status.ts", "tickets/problems.ts",
    // The gates' revocation feed reads the tickets' revocation log through its one reader and cursor.
    "tickets/feed.ts",
    "ticket-image/index.ts",
  ],
  // The box office gives back what sales sold, while it could still be sold
  // (the sale's own condition), a ticket or a whole order.
  "box-office": [
    "env.ts", "configuration", "platform", "http", "middleware", "idempotency",
    "tickets/statements/cancellation.ts", "tickets/statements/rows.ts", "tickets/statements/holds.ts",
    "tickets/schemas.ts", "tickets/status.ts", "tickets/problems.ts", "tickets/access.ts", "tickets/currency.ts",
    // The cancellations feed reads the tickets' revocation log through its one reader and cursor.
    "tickets/feed.ts",
    "sales/conditions.ts", "sales/orders.ts", "sales/schemas.ts", "sales/statements.ts",
    "ticket-image/index.ts",
  ],
  // Webhooks never read events: the events service hands the outbox the event's payload fragment.
  "webhooks": ["env.ts", "configuration", "platform", "http", "middleware"],
  // An event change's batch carries the tickets' part (handed in by app.ts:
  // events/followers.ts) and the outbox's deliveries.
  "events": [
    "env.ts", "configuration", "platform", "http", "middleware",
    "webhooks/statements.ts", "webhooks/outbox.ts",
    // An event's prices per category name active categories.
    "categories/schemas.ts", "categories/statements.ts",
  ],
  // Resellers' door (OCTO): translates into the features' services, which
  // decide every rule; it reads the day plans its answers show and signs the
  // codes sold tickets carry.
  "octo": [
    "env.ts", "configuration", "platform", "http", "middleware",
    "sales/sell.ts", "sales/order-write.ts", "sales/holds.ts", "sales/orders.ts", "sales/availability.ts", "sales/checks.ts",
    "sales/context.ts", "sales/statements.ts", "sales/schemas.ts",
    "box-office/cancellation.ts",
    "categories/service.ts", "categories/schemas.ts", "events/service.ts", "events/schemas.ts",
    "hours/calendar.ts", "hours/service.ts", "hours/statements.ts",
    "tickets/schemas.ts", "tickets/statements/rows.ts", "tickets/status.ts",
    "ticket-image/index.ts",
  ],
  // Health reports whether what a sale needs of the configuration is set.
  "health": ["env.ts", "configuration", "platform", "http"],
  "docs": ["env.ts", "platform", "http"],
  "app.ts": [
    "env.ts", "platform", "http", "middleware", "hours", "events", "categories", "health", "docs", "webhooks",
    "tickets", "sales", "ticket-image", "admission", "box-office", "octo",
  ],
  // The Worker's entry: the app, what the Cron Trigger runs, and the Queue consumer.
  "index.ts": [
    "app.ts", "configuration", "platform", "accounts/login-failures.ts", "idempotency/keys.ts",
    "webhooks/deliver.ts", "webhooks/outbox.ts",
  ],
};

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']/g;

/** The src/ modules a module imports (relative specifiers resolved; packages left out). */
function importsOf(module: string, source: string): string[] {
  const out: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2]!;
    if (!specifier.startsWith(".")) continue;
    const parts = module.split("/").slice(0, -1);
    for (const segment of specifier.split("/")) {
      if (segment === "..") parts.pop();
      else if (segment !== ".") parts.push(segment);
    }
    const base = parts.join("/");
    const target = [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => modules.has(candidate));
    // Assets (fonts, wasm) and declaration files are not modules of the graph.
    if (target) out.push(target);
  }
  return out;
}

function importGraph(sources: Map<string, string>): Map<string, string[]> {
  return new Map([...sources].map(([module, source]) => [module, importsOf(module, source)]));
}

/** Imports that break MAY_IMPORT, as `from → to`. */
function forbiddenImports(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    const unit = unitOf(from);
    const allowed = MAY_IMPORT[unit];
    for (const to of targets) {
      if (unitOf(to) === unit) continue;
      if (!allowed || !(allowed.includes(unitOf(to)) || allowed.includes(to))) bad.push(`${from} → ${to}`);
    }
  }
  return bad;
}

/** Every import cycle found by a depth-first walk, as `a → b → a`. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (module: string) => {
    state.set(module, "open");
    stack.push(module);
    for (const next of graph.get(module) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next].join(" → "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(module, "done");
  };
  for (const module of graph.keys()) if (!state.has(module)) visit(module);
  return found;
}

/** The units' graph: which units each unit's modules import (imports inside a unit left out). */
function unitGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const units = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const edges = units.get(unitOf(from)) ?? new Set<string>();
    for (const to of targets) if (unitOf(to) !== unitOf(from)) edges.add(unitOf(to));
    units.set(unitOf(from), edges);
  }
  return new Map([...units].map(([unit, edges]) => [unit, [...edges].sort()]));
}

const DECLARATION = /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|type|interface|enum)\s+([A-Za-z0-9_$]+)/gm;

/**
 * Names exported by more than one module. A route declaration and its
 * handler share the operation's name by design (used as `routes.x` and
 * `handlers.x`), so a routes.ts / handlers.ts pair of one folder is left out.
 */
function sharedExportNames(sources: Map<string, string>): string[] {
  const owners = new Map<string, string[]>();
  for (const [module, source] of sources) {
    for (const match of source.matchAll(DECLARATION)) owners.set(match[1]!, [...(owners.get(match[1]!) ?? []), module]);
  }
  const routePair = (a: string, b: string) =>
    a.replace(/routes\.ts$/, "") === b.replace(/handlers\.ts$/, "") && a.endsWith("/routes.ts") && b.endsWith("/handlers.ts");
  return [...owners]
    .filter(([, where]) => where.length > 1)
    .filter(([, where]) => !(where.length === 2 && (routePair(where[0]!, where[1]!) || routePair(where[1]!, where[0]!))))
    .map(([name, where]) => `${name}: ${where.join(", ")}`);
}

describe("the import graph of src/", () => {
  const graph = importGraph(modules);

  it("was read (every unit is known)", () => {
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get("sales/sell.ts")).toContain("tickets/statements/sale.ts");
    expect([...graph.keys()].map(unitOf).filter((unit) => !(unit in MAY_IMPORT))).toEqual([]);
  });

  it("has no cycles", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("has no cycles between units: no two features import each other, even through a third", () => {
    expect(cycles(unitGraph(graph))).toEqual([]);
  });

  it("has no import against the layers and feature entry points", () => {
    expect(forbiddenImports(graph)).toEqual([]);
  });

  it("exports every name from one module only", () => {
    expect(sharedExportNames(modules)).toEqual([]);
  });
});

describe("the checks themselves", () => {
  const graphOf = (files: Record<string, string>) => importGraph(new Map(Object.entries(files)));

  it("find a cycle, a back-edge into another feature's statements, and an import of app.ts", () => {
    const bad = graphOf({
      "events/handlers.ts": 'import { x } from "../tickets/statements/rows";\nimport * as app from "../app";',
      "tickets/statements/rows.ts": 'import { y } from "../status";',
      "tickets/status.ts": 'import { z } from "./statements/rows";',
      "app.ts": "",
    });
    expect(cycles(bad)).toEqual(["tickets/statements/rows.ts → tickets/status.ts → tickets/statements/rows.ts"]);
    expect(forbiddenImports(bad)).toEqual(["events/handlers.ts → tickets/statements/rows.ts", "events/handlers.ts → app.ts"]);
  });

  it("find two features that import each other, module cycle or not", () => {
    const bad = graphOf({
      "events/service.ts": 'import { x } from "../tickets/follow";',
      "tickets/follow.ts": "",
      "tickets/statements/rows.ts": 'import { y } from "../../events/statements";',
      "events/statements.ts": "",
    });
    expect(cycles(bad)).toEqual([]);
    expect(cycles(unitGraph(bad))).toEqual(["events → tickets → events"]);
  });

  it("find a name exported twice, but not an operation's route and handler", () => {
    const sources = new Map(Object.entries({
      "http/openapi.ts": "export function jsonBody() {}",
      "middleware/json-body/index.ts": "export const jsonBody = () => {};",
      "tickets/routes.ts": "export const buyMuseumTickets = 1;",
      "tickets/handlers.ts": "export const buyMuseumTickets = 2;",
    }));
    expect(sharedExportNames(sources)).toEqual(["jsonBody: http/openapi.ts, middleware/json-body/index.ts"]);
  });
});
