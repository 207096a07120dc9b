// Statements with typed results, and the one way to run several of them:
// a feature's statements file builds `Step`s, a service adds them to a
// `Batch` in order, runs it once (one D1 round trip, atomic) and reads
// each step's result through the handle `add` gave it.
import sql, { type Sql } from "sql-template-tag";

/** The database surface statements need: a plain D1 binding in scripts and tests, a D1 session in a request. */
export type Db = Pick<D1Database, "prepare" | "batch">;

/** A prepared statement and how to read its result. */
export type Step<T> = {
  statement: D1PreparedStatement;
  read: (result: D1Result) => T;
};

/** A step's result, once its batch has run. */
export type Handle<T> = { readonly value: T };

/** What a step reads from its result. */
type StepValue<S> = S extends Step<infer T> ? T : never;

/**
 * Prepares an `sql` template (sql-template-tag: `?` placeholders, values bound in order).
 * @public (used by the tools, which bundle this file)
 */
export function prepare(db: Db, query: Sql): D1PreparedStatement {
  return db.prepare(query.sql).bind(...query.values);
}

/** Readers of a statement's result, for `Step.read`. */
export const read = {
  /** Every row. */
  rows:
    <Row>() =>
    (result: D1Result): Row[] =>
      result.results as Row[],
  /** The first row, or null. */
  first:
    <Row>() =>
    (result: D1Result): Row | null =>
      (result.results[0] as Row | undefined) ?? null,
  /** How many rows the statement wrote. */
  changes: (result: D1Result): number => result.meta.changes,
  /** Nothing (a write whose effect is read elsewhere). */
  nothing: (): void => undefined,
};

/** A step from an `sql` template and its reader. */
export function step<T>(db: Db, query: Sql, reader: (result: D1Result) => T): Step<T> {
  return { statement: prepare(db, query), read: reader };
}

/** Runs one step on its own (one round trip). */
export async function runStep<T>(step: Step<T>): Promise<T> {
  return step.read(await step.statement.all());
}

/**
 * Another feature's part in a change's batch, once added to it: `settle`
 * waits for the batch's run, then does what must follow it either way.
 */
export type BatchPart = { settle(run: Promise<void>): Promise<void> };

/** What the database says when a batch's guard is violated (migrations/0011_capacity.sql). */
const GUARD_MARKER = "batch_guard_refused";

/**
 * A guard was violated when the batch ran, but none of the explanations
 * finds the violation any more (a concurrent change undid it): the request
 * may simply be sent again.
 */
export class GuardRaced extends Error {
  constructor() {
    super("A batch guard was violated by a concurrent change");
  }
}

type Guard = { explain: () => Promise<Error | null> };

/**
 * Statements of one or more features, run as one `db.batch`: one round trip,
 * all or nothing (a statement that fails, a trigger that aborts, or a guard
 * that is violated rolls the whole batch back).
 */
export class Batch {
  private readonly steps: Step<unknown>[] = [];
  private readonly guards: Guard[] = [];
  private values: unknown[] | null = null;

  /** `db`: the database the steps are prepared on and the batch runs on. */
  constructor(readonly db: Db) {}

  /** Adds a step after the ones already added; its handle has the result once the batch has run. */
  add<T>(step: Step<T>): Handle<T> {
    if (this.values) throw new Error("Batch already ran");
    const index = this.steps.push(step) - 1;
    const batch = this;
    return {
      get value() {
        if (!batch.values) throw new Error("Batch has not run");
        return batch.values[index] as T;
      },
    };
  }

  /** Adds several steps in a row, as `add` does each; their handles come back in the same order. */
  addAll<const S extends readonly Step<unknown>[]>(...steps: S): { [K in keyof S]: Handle<StepValue<S[K]>> } {
    return steps.map((step) => this.add(step)) as { [K in keyof S]: Handle<StepValue<S[K]>> };
  }

  /**
   * Adds a guard after the steps already added: when `violated` (an SQL
   * condition) holds at that point of the batch, the whole batch is undone.
   * `explain` then reads why (after the batch, one more round trip) and
   * returns the error to throw, or null when the violation is gone; guards
   * are explained in the order they were added.
   */
  guard(violated: Sql, explain: () => Promise<Error | null>): void {
    this.add(step(this.db, sql`INSERT INTO batch_guards (refusal) SELECT 'refused' WHERE ${violated}`, read.nothing));
    this.guards.push({ explain });
  }

  /** Runs every step in one `db.batch`, then reads each result for its handle. */
  async run(): Promise<void> {
    if (this.values) throw new Error("Batch already ran");
    let results: D1Result[];
    try {
      results = await this.db.batch(this.steps.map((step) => step.statement));
    } catch (error) {
      if (!(error instanceof Error && error.message.includes(GUARD_MARKER))) throw error;
      for (const guard of this.guards) {
        const explained = await guard.explain();
        if (explained) throw explained;
      }
      throw new GuardRaced();
    }
    this.values = this.steps.map((step, i) => step.read(results[i]!));
  }
}
