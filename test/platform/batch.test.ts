// The one way statements run (src/platform/batch.ts): steps added one by one
// or several in a row run in that order, in one db.batch, all or nothing.
// A real D1, on a table of this test's own.
import { env } from "cloudflare:workers";
import sql from "sql-template-tag";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { Batch, GuardRaced, read, runStep, step } from "../../src/platform/batch";

const db = env.DB;
const note = (text: string) => step(db, sql`INSERT INTO batch_test_notes (text) VALUES (${text})`, read.changes);
const notes = () => step(db, sql`SELECT group_concat(text, ',') AS texts FROM (SELECT text FROM batch_test_notes ORDER BY id)`, read.first<{ texts: string | null }>());

beforeEach(async () => {
  await db.batch([
    db.prepare("CREATE TABLE IF NOT EXISTS batch_test_notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL) STRICT"),
    db.prepare("DELETE FROM batch_test_notes"),
  ]);
});

afterAll(async () => {
  await db.exec("DROP TABLE batch_test_notes");
});

describe("Batch.addAll", () => {
  it("adds its steps in order, between the steps added before and after it, and hands back each one's result", async () => {
    const batch = new Batch(db);
    batch.add(note("a"));
    const [b, c, seen] = batch.addAll(note("b"), note("c"), notes());
    const after = batch.add(note("d"));
    await batch.run();
    expect([b.value, c.value, after.value]).toEqual([1, 1, 1]);
    expect(seen.value).toEqual({ texts: "a,b,c" });
    expect(await runStep(notes())).toEqual({ texts: "a,b,c,d" });
  });

  it("with no steps adds nothing", async () => {
    const batch = new Batch(db);
    expect(batch.addAll()).toEqual([]);
    const only = batch.add(notes());
    await batch.run();
    expect(only.value).toEqual({ texts: null });
  });

  it("is undone with the rest of its batch when a guard after it is violated", async () => {
    const batch = new Batch(db);
    batch.addAll(note("a"), note("b"));
    let explained = 0;
    batch.guard(sql`(SELECT count(*) FROM batch_test_notes) = 2`, async () => {
      explained += 1;
      return (await runStep(notes()))?.texts == null ? new Error("refused") : null;
    });
    batch.add(note("c"));
    await expect(batch.run()).rejects.toThrow("refused");
    expect(explained).toBe(1);
    expect(await runStep(notes())).toEqual({ texts: null });
  });

  it("throws GuardRaced when the explanation no longer finds the violation", async () => {
    const batch = new Batch(db);
    batch.addAll(note("a"));
    batch.guard(sql`1`, async () => null);
    await expect(batch.run()).rejects.toBeInstanceOf(GuardRaced);
    expect(await runStep(notes())).toEqual({ texts: null });
  });

  it("refuses steps once its batch has run, and its handles refuse to be read before", async () => {
    const batch = new Batch(db);
    const [first] = batch.addAll(notes());
    expect(() => first.value).toThrow("Batch has not run");
    await batch.run();
    expect(() => batch.addAll(note("late"))).toThrow("Batch already ran");
    expect(await runStep(notes())).toEqual({ texts: null });
  });
});
