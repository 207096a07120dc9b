// The operators' and newcomers' pages stay short enough to read whole: a
// page over its budget is cut back to results and decisions (git keeps the story).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const BUDGETS = { "docs/architecture.md": 100, "docs/performance.md": 250 };

for (const [page, most] of Object.entries(BUDGETS)) {
  test(`${page} is at most ${most} lines`, () => {
    const lines = readFileSync(new URL(`../../${page}`, import.meta.url), "utf8").trimEnd().split("\n").length;
    assert.ok(lines <= most, `${page} has ${lines} lines; its budget is ${most}`);
  });
}
