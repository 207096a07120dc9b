// `npm run ticket:code -- <file>` reads the file relative to the directory
// npm was run from (INIT_CWD), not the repository root the script runs in.
// Run by `npm test` (node --test test/tools/).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../../tools/lib/wrangler.mjs";

const npm = (cwd, ...args) => spawnSync("npm", ["run", "-s", "ticket:code", "--", ...args], { cwd, encoding: "utf8" });

describe("npm run ticket:code", () => {
  it("resolves the image's path against the caller's directory", () => {
    const fromDocs = npm(join(ROOT, "docs"), "ticket-sample.png");
    assert.equal(fromDocs.status, 0, fromDocs.stderr);
    assert.match(fromDocs.stdout, /^MT1\.K1\.[GE]\d{8}\.[A-Z2-7]+\.[A-Z2-7]+\n$/);
    assert.equal(npm(ROOT, "docs/ticket-sample.png").stdout, fromDocs.stdout);
  });

  it("fails on a file that is not there (relative to the caller)", () => {
    const result = npm(join(ROOT, "docs"), "docs/ticket-sample.png");
    assert.equal(result.status, 1);
    assert.match(result.stderr, /ENOENT/);
  });
});
