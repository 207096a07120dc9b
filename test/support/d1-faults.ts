/**
 * The test worker's D1 seam (test/support/worker.ts hands the app a D1 binding
 * wrapped by `withD1Faults`):
 * - makes D1 fail on purpose, to prove how the service behaves when its
 *   database does (docs/hardening.md, "Fault injection"); nothing fails
 *   until a test calls `injectD1Faults`;
 * - holds batches back until a test releases them (`holdD1Batches`), to
 *   order concurrent requests;
 * - counts D1 round trips (every statement call and every batch that
 *   reaches D1), for the budgets of test/performance/round-trips.test.ts;
 *   the bench's distance bundle (bench/distance-worker.mjs) delays each one.
 * None of this is in src/, so the deployed bundle holds none of it
 * (scripts/check-bundle.mjs).
 */
import type { Db } from "../../src/platform/batch";

type D1Operation = "prepare" | "run" | "first" | "all" | "raw" | "batch";

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
   * - `stale-read` (`all` and `batch`): on a session that may read from a
   *   replica (`first-unconstrained`), the read finds no rows, as on a
   *   replica that has not yet received a write made a moment ago; a batch
   *   answers its matching statements so. Sessions on the primary are not
   *   counted.
   */
  effect?: "throw" | "lost-response" | "constraint" | "stale-read";
  /** The message thrown by `throw` and `lost-response` (default: D1's "Network connection lost"). */
  message?: string;
  /** For `constraint`: how many of the batch's statements run before the failing one (default: all). */
  after?: number;
};

/** A D1-shaped error, as D1 reports an unavailable database. */
const D1_NETWORK_LOST = "D1_ERROR: Network connection lost.";

// Violates museum_weekly_hours' CHECK (day_of_week BETWEEN 0 AND 6).
const FAILING_STATEMENT =
  "INSERT INTO museum_weekly_hours (day_of_week, time_open, time_close) VALUES (7, '09:00', '18:00')";

/** What a wrapped binding does on each round trip that reaches D1 (before sending it). */
export type D1RoundTripHook = () => void | Promise<void>;

let roundTrips = 0;

/** D1 round trips made through wrapped bindings in this isolate so far. */
export function d1RoundTrips(): number {
  return roundTrips;
}

type ArmedFault = D1Fault & { seen: number; fired: boolean };
const armed: ArmedFault[] = [];

/** Arms faults; each fires once, on its nth matching call. */
export function injectD1Faults(...faults: D1Fault[]): void {
  armed.push(...faults.map((fault) => ({ ...fault, seen: 0, fired: false })));
}

type Hold = { sql: string | RegExp; waiting: number; released: Promise<void>; release: () => void };
const holds: Hold[] = [];

/**
 * Holds back every batch whose SQL contains `sql` until `release()` (or
 * `clearD1Faults`), before it reaches D1: a test can keep requests waiting at
 * that point while others run, as when a burst arrives all at once.
 * `waiting()` counts the batches held so far.
 */
export function holdD1Batches(sql: string | RegExp): { waiting(): number; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const hold: Hold = { sql, waiting: 0, released, release };
  holds.push(hold);
  return { waiting: () => hold.waiting, release };
}

async function waitForHolds(sqls: string[]): Promise<void> {
  for (const hold of holds) {
    if (!sqls.some((sql) => (typeof hold.sql === "string" ? sql.includes(hold.sql) : hold.sql.test(sql)))) continue;
    hold.waiting += 1;
    await hold.released;
  }
}

/** Disarms every fault and releases every hold; returns how many faults had fired. */
export function clearD1Faults(): number {
  const fired = armed.filter((fault) => fault.fired).length;
  armed.length = 0;
  for (const hold of holds.splice(0)) hold.release();
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
function take(operation: D1Operation, sqls: string[], onReplica = false): ArmedFault | undefined {
  let firing: ArmedFault | undefined;
  for (const fault of armed) {
    if (fault.fired || fault.on !== operation || !matches(fault, sqls)) continue;
    if (fault.effect === "stale-read" && !onReplica) continue;
    fault.seen += 1;
    if (!firing && fault.seen === (fault.nth ?? 1)) {
      fault.fired = true;
      firing = fault;
    }
  }
  return firing;
}

/** Sends one round trip to D1: counted, after the binding's hook. */
async function send<T>(hook: D1RoundTripHook | undefined, call: () => Promise<T>): Promise<T> {
  roundTrips += 1;
  await hook?.();
  return call();
}

/** What a replica that has none of the rows answers. */
function noRows<T>(result: D1Result<T>): D1Result<T> {
  return { ...result, results: [] };
}

async function perform<T>(
  operation: D1Operation,
  sqls: string[],
  hook: D1RoundTripHook | undefined,
  call: () => Promise<T>,
  onReplica: boolean,
): Promise<T> {
  const fault = take(operation, sqls, onReplica);
  if (!fault) return send(hook, call);
  if (fault.effect === "stale-read") return noRows((await send(hook, call)) as D1Result) as T;
  if (fault.effect === "lost-response") await send(hook, call);
  throw new Error(fault.message ?? D1_NETWORK_LOST);
}

class FaultyStatement {
  constructor(
    readonly real: D1PreparedStatement,
    readonly sql: string,
    readonly hook: D1RoundTripHook | undefined,
    readonly onReplica: boolean,
  ) {}

  bind(...values: unknown[]): D1PreparedStatement {
    return wrap(this.real.bind(...values), this.sql, this.hook, this.onReplica);
  }

  first(column?: string) {
    return perform("first", [this.sql], this.hook, () => (column === undefined ? this.real.first() : this.real.first(column)), this.onReplica);
  }

  run() {
    return perform("run", [this.sql], this.hook, () => this.real.run(), this.onReplica);
  }

  all() {
    return perform("all", [this.sql], this.hook, () => this.real.all(), this.onReplica);
  }

  raw(options?: { columnNames?: boolean }) {
    return perform("raw", [this.sql], this.hook, () => this.real.raw(options as { columnNames: true }), this.onReplica);
  }
}

function wrap(statement: D1PreparedStatement, sql: string, hook: D1RoundTripHook | undefined, onReplica: boolean): D1PreparedStatement {
  return new FaultyStatement(statement, sql, hook, onReplica) as unknown as D1PreparedStatement;
}

function unwrap(statement: D1PreparedStatement): D1PreparedStatement {
  return statement instanceof FaultyStatement ? statement.real : statement;
}

function sqlOf(statement: D1PreparedStatement): string {
  return statement instanceof FaultyStatement ? statement.sql : "";
}

function faultyDb(db: Db, hook: D1RoundTripHook | undefined, onReplica = false): Db {
  return {
    prepare(query: string) {
      if (take("prepare", [query])) throw new Error(D1_NETWORK_LOST);
      return wrap(db.prepare(query), query, hook, onReplica);
    },
    async batch<T = unknown>(statements: D1PreparedStatement[]) {
      const sqls = statements.map(sqlOf);
      await waitForHolds(sqls);
      const fault = take("batch", sqls, onReplica);
      const real = statements.map(unwrap);
      if (!fault) return send(hook, () => db.batch<T>(real));
      if (fault.effect === "stale-read") {
        const results = await send(hook, () => db.batch<T>(real));
        return results.map((result, i) => (matches(fault, [sqls[i]!]) ? noRows(result) : result));
      }
      if (fault.effect === "constraint") {
        const at = Math.min(fault.after ?? real.length, real.length);
        return send(hook, () => db.batch<T>([...real.slice(0, at), db.prepare(FAILING_STATEMENT), ...real.slice(at)]));
      }
      if (fault.effect === "lost-response") await send(hook, () => db.batch<T>(real));
      throw new Error(fault.message ?? D1_NETWORK_LOST);
    },
  };
}

/**
 * A D1 binding whose sessions (the d1-session middleware opens one per
 * request) and direct statements go through the armed faults, each round
 * trip counted and passed through `onRoundTrip` first.
 */
export function withD1Faults(db: D1Database, onRoundTrip?: D1RoundTripHook): D1Database {
  return {
    ...faultyDb(db, onRoundTrip),
    withSession(constraintOrBookmark?: string) {
      const session = db.withSession(constraintOrBookmark);
      const onReplica = constraintOrBookmark === "first-unconstrained";
      return { ...faultyDb(session, onRoundTrip, onReplica), getBookmark: () => session.getBookmark() };
    },
  } as D1Database;
}
