// The seeds on a real local D1 (wrangler d1 execute --local --persist-to a
// temporary directory, every migration applied): scripts/seed.mjs loads the
// sample data (events, holidays, ticket categories, accounts) through the builders, a rerun writes nothing, --redate moves
// the dates; bench/seed.mjs loads events and tickets with the places counted.
// Run by `npm test` (node --test test/tools/); about 20 s of wrangler calls.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { SAMPLE_EVENTS, placeSampleDates } from "../../scripts/seed.mjs";
import { benchUuid, dayPlaces, explainQueryPlan, nextOpenDay, seedDatabase } from "../../bench/seed.mjs";
import { tempDir } from "../../tools/lib/process-end.mjs";
import { recordingDb as db, renderSql, sqlScript, statements } from "../../tools/lib/statements.mjs";
import { ROOT, applyMigrations, d1Execute, d1Target } from "../../tools/lib/wrangler.mjs";

const b = statements();

function seed(persistTo, ...args) {
  // The accounts of .dev.vars.example, whatever a developer's own .dev.vars holds.
  const devVars = join(ROOT, ".dev.vars.example");
  const run = spawnSync(process.execPath, [join(ROOT, "scripts", "seed.mjs"), "--local", "--persist-to", persistTo, "--dev-vars", devVars, ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stderr;
}

/** The sample events as GET reads them (selectActiveEvent), by eventId; null for one not active. */
function sampleEvents(target) {
  const results = d1Execute(target, { command: sqlScript(SAMPLE_EVENTS.map((e) => b.events.selectActiveEvent(db, e.eventId))) });
  return results.map((rows) => (rows[0] ? JSON.parse(rows[0].event) : null));
}

describe("scripts/seed.mjs on a local D1", () => {
  const dir = tempDir("museum-seed-test-");
  const target = d1Target({ persistTo: dir.path });
  before(() => applyMigrations(target, { quiet: true }));

  it("loads the ten sample events, the holidays, the local accounts and the reseller's key; a rerun writes nothing; --redate moves the dates", () => {
    assert.match(seed(dir.path, "--today", "2030-01-07"), /seed wrote: events: 10, event dates: 25, holidays: 3, ticket categories: 3, accounts: 6, API keys: 1\n/);
    const placed = placeSampleDates(SAMPLE_EVENTS, "2030-01-07");
    assert.deepEqual(
      sampleEvents(target),
      placed.map(({ eventId, name, location, eventDescription, dates, price }) => ({ eventId, name, location, eventDescription, dates, price })),
    );
    const [holidays, accounts, keys] = d1Execute(target, {
      command: sqlScript([b.hours.selectExceptions(db, "2030-01-01", "2031-12-31"), b.accounts.selectAccounts(db), b.accounts.selectApiKeys(db)]),
    });
    assert.deepEqual(holidays.map((h) => [h.date, h.time_open, h.reason]), [
      ["2030-12-24", "09:00", "Christmas Eve: closes early"],
      ["2030-12-25", null, "Christmas Day"],
      ["2031-01-01", null, "New Year's Day"],
    ]);
    assert.deepEqual(accounts.map((a) => a.name).sort(), ["local-admin", "local-box-office", "local-gate", "local-kiosk", "local-reseller", "local-sales"]);
    assert.deepEqual(keys.map((k) => [k.key_id, k.account_name, k.revoked_at]), [["local", "local-reseller", null]]);
    const [categories] = d1Execute(target, { command: sqlScript([b.categories.selectCategories(db, false)]) });
    assert.deepEqual(categories.map((c) => [c.category_id, c.price_cents, c.accompanied, c.is_default, c.unit_type]), [
      ["adult", 2500, 0, 1, "ADULT"],
      ["child", 0, 1, 0, "CHILD"],
      ["concession", 1500, 0, 0, "STUDENT"],
      ["member", 0, 0, 0, "OTHER"],
    ]);

    // A later day: the events keep their dates; only the next holidays are new.
    assert.match(seed(dir.path, "--today", "2030-01-08"), /seed wrote nothing/);
    assert.match(seed(dir.path, "--today", "2031-02-03", "--redate"), /seed wrote: events redated: 10, holidays: 3\n/);
    const redated = placeSampleDates(SAMPLE_EVENTS, "2031-02-03");
    assert.deepEqual(sampleEvents(target).map((e) => e.dates), redated.map((e) => e.dates));
    assert.match(seed(dir.path, "--today", "2031-02-03", "--redate"), /seed wrote nothing/);
  });

  it("runs a rendered long text and a CASE … END) statement as wrangler splits them", () => {
    const text = `${"é😀'".repeat(700)}?`;
    const results = d1Execute(target, {
      command: `${renderSql("SELECT ? AS v, (CASE WHEN 1 THEN 'a' END) AS c", [text])};\nSELECT 2 AS n;`,
    });
    assert.deepEqual(results, [[{ v: text, c: "a" }], [{ n: 2 }]]);
  });
});

describe("bench/seed.mjs on a local D1", () => {
  it("loads events, their dates and tickets through the builders, with the places counted", () => {
    const dir = tempDir("museum-bench-seed-test-");
    const today = "2030-01-07";
    const full = nextOpenDay("2030-02-11");
    const seeded = seedDatabase({ persistTo: dir.path, today, events: 1000, tickets: 5, dayTickets: { date: full, count: 7 } });
    assert.equal(seeded.eventIds.length, 1000);
    assert.deepEqual(seeded.ticketIds, [0, 1, 2, 3, 4].map((n) => benchUuid(2, n)));
    assert.deepEqual(dayPlaces(dir.path, full), { counter: 7, tickets: 7 });
    assert.deepEqual(dayPlaces(dir.path, seeded.ticketDate), { counter: 5, tickets: 5 });
    const target = d1Target({ persistTo: dir.path });
    const [[first], [last], window] = d1Execute(target, {
      command: sqlScript([
        b.events.selectActiveEvent(db, benchUuid(1, 0)),
        b.events.selectActiveEvent(db, benchUuid(1, 999)),
        b.events.listEventsInWindow(db, { startDate: today, endDate: "2031-01-07", limit: 2000, offset: 0 }),
      ]),
    });
    assert.equal(JSON.parse(first.event).name, "Bench event 000000");
    assert.deepEqual(JSON.parse(last.event).dates.length, 1);
    assert.equal(window.length, 1000);
    const plan = explainQueryPlan(dir.path, b.events.eventsInWindowQuery({ startDate: today, endDate: "2031-01-07", limit: 11, offset: 0 }));
    assert.ok(plan.some((line) => line.includes("special_event_dates_by_date")), plan.join("\n"));
    dir.remove();
  });
});
