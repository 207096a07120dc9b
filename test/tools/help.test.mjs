// Every runnable script answers --help with its usage (exit 0) and does
// nothing else: no server, no file written. A script that ignored --help
// would start wrangler dev or do its work, and take far longer than this allows.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { ROOT } from "../../tools/lib/wrangler.mjs";

/** Modules of scripts/ that other scripts import and that have no command line of their own. */
const SCRIPT_LIBRARIES = ["scripts/arazzo-workflows.mjs", "scripts/preflight-checks.mjs"];

function mjsFiles(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".mjs"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

// tools/ holds only libraries (tools/lib); a runnable file added anywhere else in tools/ is checked too.
const RUNNABLE = [
  ...mjsFiles("scripts").filter((file) => !SCRIPT_LIBRARIES.includes(file)),
  ...mjsFiles("tools").filter((file) => !file.startsWith("tools/lib/")),
];

test("the list of scripts is the scripts directory, libraries aside", () => {
  assert.ok(RUNNABLE.includes("scripts/dev.mjs") && RUNNABLE.includes("scripts/e2e-kiosk.mjs"));
  assert.ok(RUNNABLE.length >= 17, RUNNABLE.join(", "));
  for (const library of SCRIPT_LIBRARIES) assert.ok(mjsFiles("scripts").includes(library), `${library} exists`);
});

for (const file of RUNNABLE) {
  for (const flag of ["--help", "-h"]) {
    test(`${file} ${flag}: usage on stdout, exit 0, nothing started`, () => {
      const started = performance.now();
      const run = spawnSync(process.execPath, [join(ROOT, file), flag], { cwd: ROOT, encoding: "utf8", timeout: 15_000 });
      const seconds = (performance.now() - started) / 1000;
      assert.equal(run.status, 0, `exit ${run.status ?? run.signal}:\n${run.stdout}${run.stderr}`);
      assert.match(run.stdout, /^usage: /, run.stdout);
      assert.equal(run.stderr, "");
      assert.doesNotMatch(run.stdout, /wrangler dev on|Ready on|error/i);
      assert.ok(seconds < 10, `took ${seconds.toFixed(1)} s`);
    });
  }
}
