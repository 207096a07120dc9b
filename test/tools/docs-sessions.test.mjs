// How `npm run test:docs` turns a page's blocks into one bash script: the
// sessions name the server once (BASE), pointed at the runner's server, and a
// file block is saved where the page says, at its place among the sessions.
// The scripts run here in a real bash, without a server (no curl).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runBlocks, sessionScript } from "../../scripts/docs-sessions.mjs";
import { tempDir } from "../../tools/lib/process-end.mjs";

const ORIGIN = "http://127.0.0.1:45678";
const page = (...blocks) => blocks.join("\n\n");
const fence = (info, text) => `\`\`\`${info}\n${text}\n\`\`\``;

test("the BASE line names the runner's server; the requests use $BASE as written", () => {
  const blocks = runBlocks(page(fence("sh session", "BASE=http://127.0.0.1:8787   # npm run dev's address\ncurl $BASE/v1.1/special-events")));
  const { script, problems } = sessionScript(blocks, ORIGIN);
  assert.deepEqual(problems, []);
  assert.match(script, /^BASE=http:\/\/127\.0\.0\.1:45678 {3}# npm run dev's address$/m);
  assert.match(script, /^curl \$BASE\/v1\.1\/special-events$/m);
  assert.doesNotMatch(script, /8787/);
});

test("any other mention of npm run dev's address in a session is a problem, with its line", () => {
  const markdown = page(
    "# A page",
    fence("sh session", "BASE=http://127.0.0.1:8787\ncurl http://127.0.0.1:8787/healthz\ncurl 'localhost:8787/v1.1/museum-hours'"),
    fence("sh", "curl http://127.0.0.1:8787/healthz   # not a session: never run"),
  );
  const { problems } = sessionScript(runBlocks(markdown), ORIGIN);
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.match(problems[0], /^line 5: name the server as \$BASE/);
  assert.match(problems[1], /^line 6: /);
  assert.deepEqual(sessionScript(runBlocks(fence("sh session", "BASE=http://127.0.0.1:8788\ncurl $BASE/healthz")), ORIGIN).problems.length, 1, "another port is no BASE line");
});

test("a file block is saved at its place among the sessions, at a path made of their variables", () => {
  const dir = tempDir("museum-docs-sessions-test-");
  try {
    const markdown = page(
      fence("sh session", `APP="${dir.path}/app"\nmkdir "$APP"`),
      "Save this as `check.mjs` in that directory:",
      fence("js file=$APP/check.mjs", 'console.log("it $runs" + `${1 + 1}`);'),
      fence("sh session", 'node "$APP/check.mjs" > "$APP/out.txt"'),
    );
    const blocks = runBlocks(markdown);
    assert.deepEqual(blocks.map((block) => [block.session, block.name]), [[true, undefined], [false, "$APP/check.mjs"], [true, undefined]]);
    const { script, problems } = sessionScript(blocks, ORIGIN);
    assert.deepEqual(problems, []);
    const run = spawnSync("bash", ["-c", script], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(join(dir.path, "app", "check.mjs"), "utf8"), 'console.log("it $runs" + `${1 + 1}`);\n', "saved as written, nothing expanded");
    assert.equal(readFileSync(join(dir.path, "app", "out.txt"), "utf8"), "it $runs2\n");
    assert.ok(!existsSync("$APP"));
  } finally {
    dir.remove();
  }
});
