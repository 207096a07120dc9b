// The bench's own logic that a run depends on (bench/, docs/performance.md):
// what a run writes when a phase fails, the budgets checked against a
// "before", the isolate's samples within a function, and which migrations a
// checkout's local D1 gets for `npm run bench -- --against <checkout>`.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../tools/lib/process-end.mjs";
import { ROOT, d1Execute, d1Target } from "../../tools/lib/wrangler.mjs";
import { checkBudgets, renderMarkdown, runPhases, writeResults } from "../../bench/report.mjs";
import { WARMED_UP } from "../../bench/render.mjs";
import { sampleCounts } from "../../bench/servers.mjs";
import { migrationsCommand, migrationsDir, seedDatabase } from "../../bench/seed.mjs";

const measured = {
  id: "static", title: "`GET /` (static; the baseline)", db: "small", kind: "static", connections: 10,
  requests: 500, rps: 100, p50: 4.2, p99: 9.9, failures: 0, cpuMs: { runtime: 1.5, proxy: 2, wrangler: 0.1 }, otherCores: 0.1,
};

function results() {
  return {
    mode: "partial", args: ["--only", "static,render-cost"], startedAt: "2030-01-07T10:00:00.000Z", settings: { d1Rtt: 0, warmup: 2, duration: 10, connections: 10 },
    machine: { cpus: 2, model: "test", memGiB: 1, os: "test", node: "v20", wrangler: "4", autocannon: "8", commit: "abc1234" },
    loadBefore: [0, 0, 0], loadAfter: [0, 0, 0], wallSeconds: 1, scenarios: [], pairs: {},
  };
}

describe("bench/report.mjs: the results writer", () => {
  it("keeps what was measured and names the phase that threw", async () => {
    const dir = tempDir("museum-bench-test-");
    const out = join(dir.path, "latest.md");
    const r = results();
    let after = false;
    await runPhases(
      [
        ["wrangler dev, 100 events", () => r.scenarios.push(measured)],
        ["render phases", async () => {
          r.renderCost = { renders: 2, warmups: 0, subjects: [{ label: "this checkout", freshMs: 150, warmupMs: [], firstMs: [12, 13, 14], cachedMs: [1, 1] }] };
          throw new Error("GET /qr of a general ticket answered 500");
        }],
        ["never reached", () => (after = true)],
      ],
      r,
    );
    assert.equal(after, false);
    const failed = writeResults(out, r);
    assert.match(failed, /render phases failed: GET \/qr of a general ticket answered 500/);
    const markdown = readFileSync(out, "utf8");
    assert.match(markdown, /\*\*The run failed\*\* in render phases: GET \/qr of a general ticket answered 500/);
    assert.match(markdown, /\| `GET \/` \(static; the baseline\) \| 10 \| 500 \| 100 \| 4\.20 \|/);
    assert.match(markdown, /first fetch, p10 \/ p50 \/ p90 ms \| 12\.00 \/ \*\*13\.00\*\* \/ 14\.00/);
    const raw = JSON.parse(readFileSync(join(dir.path, "latest.raw.json"), "utf8"));
    assert.deepEqual(raw.failure, { phase: "render phases", message: "GET /qr of a general ticket answered 500" });
    assert.equal(raw.scenarios.length, 1);
    dir.remove();
  });

  it("fails a run without a phase error only on failed requests", () => {
    const dir = tempDir("museum-bench-test-");
    const r = results();
    r.scenarios.push(measured);
    assert.equal(writeResults(join(dir.path, "a.md"), r), undefined);
    r.scenarios.push({ ...measured, id: "hours", failures: 3 });
    assert.match(writeResults(join(dir.path, "b.md"), r), /^3 failed requests/);
    dir.remove();
  });
});

describe("bench/servers.mjs: sampleCounts of a V8 CPU profile", () => {
  // (root) → handler → verifyTicketCodeWith → verify; (root) → other → verify; (root) → (idle)
  const frame = (id, functionName, children = []) => ({ id, callFrame: { functionName }, children });
  const profile = {
    nodes: [frame(1, "(root)", [2, 3, 6]), frame(2, "handler", [4]), frame(3, "other", [5]), frame(4, "verifyTicketCodeWith", [7]), frame(5, "verify"), frame(6, "(idle)"), frame(7, "verify")],
    samples: [6, 6, 2, 4, 7, 7, 5, 1, 6, 3],
  };

  it("counts the busy samples, and those whose stack holds the named function at any depth", () => {
    assert.deepEqual(sampleCounts(profile, ["verifyTicketCodeWith", "handler", "verify", "absent"]), { busy: 7, within: { verifyTicketCodeWith: 3, handler: 4, verify: 3, absent: 0 } });
  });

  it("counts no idle sample, even within a named function", () => {
    const idleWithin = { nodes: [frame(1, "(root)", [2]), frame(2, "verifyTicketCodeWith", [3]), frame(3, "(idle)")], samples: [3, 3, 2] };
    assert.deepEqual(sampleCounts(idleWithin, ["verifyTicketCodeWith"]), { busy: 1, within: { verifyTicketCodeWith: 1 } });
    assert.deepEqual(sampleCounts(profile), { busy: 7, within: {} });
  });
});

describe("bench/report.mjs: budgets against a before, and CPU within a function", () => {
  const series = (ms) => Array.from({ length: 60 }, () => ({ cpuMs: ms, latencyMs: ms + 1 }));
  const freshSubject = (label, warm) => ({ label, fresh: { general: [series(warm.general)], event: [series(warm.event)], cancelled: [series(warm.cancelled)], [WARMED_UP]: [series(warm.general)] }, sales: [], pairs: [{ event: 10, cancelled: 10 }] });
  const withBefore = () => ({
    ...results(),
    renderCost: { renders: 3, warmups: 0, subjects: [{ label: "this checkout", freshMs: 150, warmupMs: [], firstMs: [11, 13, 30], cachedMs: [1] }, { label: "before (main)", freshMs: 150, warmupMs: [], firstMs: [10, 10, 10], cachedMs: [1] }] },
    freshIsolates: { rounds: 1, renders: 60, subjects: [freshSubject("this checkout", { general: 11, event: 11, cancelled: 13 }), freshSubject("before (main)", { general: 10, event: 10, cancelled: 10 })] },
    pairs: { "gate, profiled": [{ id: "admit", title: "gate: admit a ticket", requests: 150, isolateSamples: 600, cpuMs: { runtime: 5 }, round: 1, cpuWithin: [{ fn: "verifyTicketCodeWith", what: "verifying a code", budgetMs: 1, samples: 90 }] }] },
  });
  const byId = (checks, id) => checks.filter((c) => c.id === id);

  it("checks each warm render against the before's: the median of the alternated ratios, at most 1.25×", () => {
    const checks = checkBudgets(withBefore());
    // 1.1, 1.3, 3.0: the median, not the mean, of the fetches' ratios.
    assert.deepEqual(byId(checks, "render-general-against").map((c) => [c.value, c.pass]), [["1.30×", false], ["1.10×", true]]);
    assert.deepEqual(byId(checks, "render-event-against").map((c) => [c.value, c.pass]), [["1.10×", true]]);
    assert.deepEqual(byId(checks, "render-cancelled-against").map((c) => [c.value, c.pass]), [["1.30×", false]]);
    const markdown = renderMarkdown(withBefore());
    assert.match(markdown, /Warm renders, this checkout \/ before \(main\), the medians of the alternated ratios: general \(a warm isolate's first renders, fetched in turn\) 1\.30×;/);
  });

  it("checks the CPU within a function per request against its budget, and reports it", () => {
    const [verify] = byId(checkBudgets(withBefore()), "admit");
    assert.equal(verify.value, "0.060 ms");
    assert.equal(verify.pass, true);
    const slow = withBefore();
    slow.pairs["gate, profiled"][0].cpuWithin[0].samples = 1500;
    const [missed] = byId(checkBudgets(slow), "admit");
    assert.deepEqual([missed.value, missed.pass], ["1.000 ms", false]);
    assert.match(renderMarkdown(withBefore()), /\| gate, profiled \| gate: admit a ticket \| 150 \| `verifyTicketCodeWith` \(verifying a code\) \| 0\.060 \| 0\.40 \| < 1 ms pass \|/);
  });

  it("checks nothing against a before when a run had none", () => {
    const alone = withBefore();
    alone.renderCost.subjects.pop();
    alone.freshIsolates.subjects.pop();
    assert.equal(checkBudgets(alone).filter((c) => c.id.endsWith("-against")).length, 0);
  });
});

describe("bench/report.mjs: the hot paths with D1 at a distance", () => {
  const run = (id, roundTrips, p50, p99) => ({ id, title: id, roundTrips, p50, p99, cpuMs: { runtime: 1 }, failures: 0 });
  const atDistance = (near, far) => ({ ...results(), settings: { ...results().settings, d1Rtt: 25 }, distance: { 0: near, 25: far } });
  const rows = (checks, id) => checks.filter((c) => c.id === id).map((c) => [c.rule, c.value, c.pass]);

  it("allows a path the distance once for each of its round trips, and holds a reseller's paths to their p99", () => {
    const checks = checkBudgets(atDistance(
      [run("octo-booking", 2, 40, 100), run("octo-availability", 1, 10, 50), run("qr-cached", 0, 4, 20)],
      [run("octo-booking", 2, 95, 1000), run("octo-availability", 1, 40.5, 250.5), run("qr-cached", 0, 34.5, 20)],
    ));
    assert.deepEqual(rows(checks, "octo-booking"), [
      ["p50 at D1 25 ms ≤ p50 at 0 ms + 2 × 25 + 5 ms", "95.00 ms vs 95.00 ms", true],
      ["p99 at D1 25 ms ≤ 1000 ms (a reseller platform's wait for a booking)", "1000.00 ms", true],
    ]);
    assert.deepEqual(rows(checks, "octo-availability"), [
      ["p50 at D1 25 ms ≤ p50 at 0 ms + 25 + 5 ms", "40.50 ms vs 40.00 ms", false],
      ["p99 at D1 25 ms ≤ 250 ms (a reseller platform's wait for availability)", "250.50 ms", false],
    ]);
    // No round trip: still at most one distance.
    assert.deepEqual(rows(checks, "qr-cached"), [["p50 at D1 25 ms ≤ p50 at 0 ms + 25 + 5 ms", "34.50 ms vs 34.00 ms", false]]);
  });
});

describe("bench/seed.mjs: a checkout's own migrations", () => {
  it("reads the migrations directory from the checkout's wrangler.toml", () => {
    const dir = tempDir("museum-bench-checkout-");
    assert.equal(migrationsDir(ROOT), join(ROOT, "migrations"));
    writeFileSync(join(dir.path, "wrangler.toml"), 'name = "x"\n\n[[d1_databases]]\nbinding = "DB"\nmigrations_dir = "db/sql"\n\n[env.staging]\nmigrations_dir = "other"\n');
    assert.equal(migrationsDir(dir.path), join(dir.path, "db", "sql"));
    writeFileSync(join(dir.path, "wrangler.toml"), 'name = "x"\n\n[[d1_databases]]\nbinding = "DB"\n');
    assert.equal(migrationsDir(dir.path), join(dir.path, "migrations"));
    const command = migrationsCommand(dir.path, "/tmp/d1");
    assert.equal(command.cwd, dir.path);
    assert.deepEqual(command.args.slice(-2), ["--config", join(dir.path, "wrangler.toml")]);
    dir.remove();
  });

  it("seeds an older checkout with its migrations, not this repository's", () => {
    const checkout = tempDir("museum-bench-checkout-");
    const persistTo = tempDir("museum-bench-d1-");
    // A checkout from before migrations/0011 (ticket_places and its triggers).
    cpSync(join(ROOT, "wrangler.toml"), join(checkout.path, "wrangler.toml"));
    mkdirSync(join(checkout.path, "migrations"));
    for (const name of readdirSync(join(ROOT, "migrations")).filter((n) => n < "0011")) cpSync(join(ROOT, "migrations", name), join(checkout.path, "migrations", name));
    symlinkSync(join(ROOT, "src"), join(checkout.path, "src"));
    symlinkSync(join(ROOT, "node_modules"), join(checkout.path, "node_modules"));
    const seeded = seedDatabase({ checkout: checkout.path, persistTo: persistTo.path, today: "2030-01-07", events: 0, tickets: 0 });
    const [tables] = d1Execute(d1Target({ persistTo: persistTo.path }), { command: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name" });
    const names = tables.map((t) => t.name);
    assert.ok(names.includes("tickets") && names.includes("accounts"), names.join(", "));
    assert.ok(!names.includes("ticket_places"), names.join(", "));
    assert.equal(seeded.account.name, "bench-admin");
    assert.equal(seeded.reseller, undefined, "a checkout from before OCTO has no API keys");
    checkout.remove();
    persistTo.remove();
  });
});
