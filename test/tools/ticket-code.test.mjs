// `npm run ticket:code -- <file>` reads the file relative to the directory
// npm was run from (INIT_CWD), not the repository root the script runs in,
// and fails loudly (stderr, the path it read, exit 1) even under `npm run -s`.
// Run by `npm test` (node --test test/tools/).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ROOT } from "../../tools/lib/wrangler.mjs";

const npm = (cwd, ...args) => spawnSync("npm", ["run", "-s", "ticket:code", "--", ...args], { cwd, encoding: "utf8" });
/** From a directory outside the repository, as `npm run --prefix <repository>` runs it. */
const npmOutside = (cwd, ...args) =>
  spawnSync("npm", ["run", "-s", "--prefix", ROOT, "ticket:code", "--", ...args], { cwd, encoding: "utf8" });

const outside = mkdtempSync(join(tmpdir(), "ticket-code-test-"));
after(() => rmSync(outside, { recursive: true, force: true }));

function expectLoudFailure(result, ...fragments) {
  assert.equal(result.status, 1, result.stderr);
  assert.equal(result.stdout, "");
  for (const fragment of fragments) assert.ok(result.stderr.includes(fragment), `stderr names ${fragment}:\n${result.stderr}`);
}

describe("npm run ticket:code", () => {
  it("resolves the image's path against the caller's directory", () => {
    const fromDocs = npm(join(ROOT, "docs"), "ticket-sample.png");
    assert.equal(fromDocs.status, 0, fromDocs.stderr);
    assert.match(fromDocs.stdout, /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}\n$/);
    assert.equal(npm(ROOT, "docs/ticket-sample.png").stdout, fromDocs.stdout);
    assert.equal(npmOutside(join(ROOT, "docs"), "ticket-sample.png").stdout, fromDocs.stdout);
  });

  it("fails loudly on a file that is not there, naming the path it tried", () => {
    expectLoudFailure(npm(join(ROOT, "docs"), "docs/ticket-sample.png"), join(ROOT, "docs", "docs", "ticket-sample.png"), "no such file");
    expectLoudFailure(npmOutside(outside, "ticket.png"), join(outside, "ticket.png"), "no such file");
  });

  it("fails loudly on a file that is not a PNG (curl -o saved an error answer)", () => {
    writeFileSync(join(outside, "problem.png"), '{"type":"about:blank","title":"Unauthorized","status":401}');
    expectLoudFailure(npmOutside(outside, "problem.png"), join(outside, "problem.png"), "not a PNG", '"status":401');
  });

  it("fails loudly on a PNG without a QR code", () => {
    // A 1×1 white PNG.
    const white = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGP4DwABAQEAWk1v8QAAAABJRU5ErkJggg==",
      "base64",
    );
    writeFileSync(join(outside, "white.png"), white);
    expectLoudFailure(npmOutside(outside, "white.png"), join(outside, "white.png"), "no QR code");
  });

  it("refuses no argument, two, or an option, with the usage (exit 2)", () => {
    for (const args of [[], ["a.png", "b.png"], ["--x"]]) {
      const result = npm(ROOT, ...args);
      assert.equal(result.status, 2, JSON.stringify(args));
      assert.match(result.stderr, /usage: npm run ticket:code/);
    }
  });
});
