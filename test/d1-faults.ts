/**
 * Makes D1 fail on purpose, to prove how the service behaves when its
 * database does (docs/hardening.md, "Fault injection"). The test worker
 * (test/worker.ts) hands the app a D1 binding wrapped by `withD1Faults`;
 * nothing fails until a test calls `injectD1Faults`. None of this is in
 * src/, so the deployed bundle holds none of it (scripts/check-bundle.mjs).
 */
import type { Db } from "../src/env";

export type D1Operation = "prepare" | "run" | "first" | "all" | "raw" | "batch";

export type D1Fault = {
  /** The kind of call that fails. */
  on: D1Operation;
  /** Which matching call fails, counted from 1 since the fault was injected (default 1). */
  nth?: number;
  /** Only calls whose SQL contains this (for a batch: any of its statements) are counted. */
  sql?: string | RegExp;
  /**
   * - `throw` (default): the call throws before it reaches D1, as when D1 is
   *   unreachable.
   * - `lost-response`: the call reaches D1 and completes, then throws, as when
   *   the connection drops after the commit: the write happened, the Worker
   *   cannot know.
   * - `constraint` (batches only): a real statement that violates a CHECK
   *   constraint runs inside the batch after its first `after` statements,
   *   so D1 itself fails the batch and rolls back what those statements did.
   */
  effect?: "throw" | "lost-response" | "constraint";
  /** The message thrown by `throw` and `lost-response` (default: D1's "Network connection lost"). */
  message?: string;
  /** For `constraint`: how many of the batch's statements run before the failing one (default: all). */
  after?: number;
};

/** A D1-shaped error, as D1 reports an unavailable database. */
export const D1_NETWORK_LOST = "D1_ERROR: Network connection lost.";

// Violates museum_weekly_hours' CHECK (day_of_week BETWEEN 0 AND 6).
const FAILING_STATEMENT =
  "INSERT INTO museum_weekly_hours (day_of_week, time_open, time_close) VALUES (7, '09:00', '18:00')";

type ArmedFault = D1Fault & { seen: number; fired: boolean };
const armed: ArmedFault[] = [];

/** Arms faults; each fires once, on its nth matching call. */
export function injectD1Faults(...faults: D1Fault[]): void {
  armed.push(...faults.map((fault) => ({ ...fault, seen: 0, fired: false })));
}

/** Disarms every fault; returns how many had fired. */
export function clearD1Faults(): number {
  const fired = armed.filter((fault) => fault.fired).length;
  armed.length = 0;
  return fired;
}

/** The faults that have fired so far (to assert that a test hit its target). */
export function firedD1Faults(): D1Fault[] {
  return armed.filter((fault) => fault.fired);
}

function matches(fault: ArmedFault, sqls: string[]): boolean {
  if (fault.sql === undefined) return true;
  const pattern = fault.sql;
  return sqls.some((sql) => (typeof pattern === "string" ? sql.includes(pattern) : pattern.test(sql)));
}

/** The fault that fires on this call, if any (counting the call for every armed fault it matches). */
function take(operation: D1Operation, sqls: string[]): ArmedFault | undefined {
  let firing: ArmedFault | undefined;
  for (const fault of armed) {
    if (fault.fired || fault.on !== operation || !matches(fault, sqls)) continue;
    fault.seen += 1;
    if (!firing && fault.seen === (fault.nth ?? 1)) {
      fault.fired = true;
      firing = fault;
    }
  }
  return firing;
}

async function perform<T>(operation: D1Operation, sqls: string[], call: () => Promise<T>): Promise<T> {
  const fault = take(operation, sqls);
  if (!fault) return call();
  if (fault.effect === "lost-response") await call();
  throw new Error(fault.message ?? D1_NETWORK_LOST);
}

class FaultyStatement {
  constructor(
    readonly real: D1PreparedStatement,
    readonly sql: string,
  ) {}

  bind(...values: unknown[]): D1PreparedStatement {
    return wrap(this.real.bind(...values), this.sql);
  }

  first(column?: string) {
    return perform("first", [this.sql], () => (column === undefined ? this.real.first() : this.real.first(column)));
  }

  run() {
    return perform("run", [this.sql], () => this.real.run());
  }

  all() {
    return perform("all", [this.sql], () => this.real.all());
  }

  raw(options?: { columnNames?: boolean }) {
    return perform("raw", [this.sql], () => this.real.raw(options as { columnNames: true }));
  }
}

function wrap(statement: D1PreparedStatement, sql: string): D1PreparedStatement {
  return new FaultyStatement(statement, sql) as unknown as D1PreparedStatement;
}

function unwrap(statement: D1PreparedStatement): D1PreparedStatement {
  return statement instanceof FaultyStatement ? statement.real : statement;
}

function sqlOf(statement: D1PreparedStatement): string {
  return statement instanceof FaultyStatement ? statement.sql : "";
}

function faultyDb(db: Db): Db {
  return {
    prepare(query: string) {
      if (take("prepare", [query])) throw new Error(D1_NETWORK_LOST);
      return wrap(db.prepare(query), query);
    },
    async batch<T = unknown>(statements: D1PreparedStatement[]) {
      const fault = take("batch", statements.map(sqlOf));
      const real = statements.map(unwrap);
      if (!fault) return db.batch<T>(real);
      if (fault.effect === "constraint") {
        const at = Math.min(fault.after ?? real.length, real.length);
        return db.batch<T>([...real.slice(0, at), db.prepare(FAILING_STATEMENT), ...real.slice(at)]);
      }
      if (fault.effect === "lost-response") await db.batch<T>(real);
      throw new Error(fault.message ?? D1_NETWORK_LOST);
    },
  };
}

/**
 * A D1 binding whose sessions (the d1-session middleware opens one per
 * request) and direct statements go through the armed faults.
 */
export function withD1Faults(db: D1Database): D1Database {
  return {
    ...faultyDb(db),
    withSession(constraintOrBookmark?: string) {
      const session = db.withSession(constraintOrBookmark);
      return { ...faultyDb(session), getBookmark: () => session.getBookmark() };
    },
  } as D1Database;
}
