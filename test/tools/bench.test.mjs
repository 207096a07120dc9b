// The bench's own logic that a run depends on (bench/, docs/performance.md):
// what a run writes when a phase fails, and which migrations a checkout's
// local D1 gets for `npm run bench -- --against <checkout>`.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../tools/lib/process-end.mjs";
import { ROOT, d1Execute, d1Target } from "../../tools/lib/wrangler.mjs";
import { runPhases, writeResults } from "../../bench/report.mjs";
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
    checkout.remove();
    persistTo.remove();
  });
});
