// Redocly's Arazzo workflows for the Museum API (the reference's
// *.arazzo.yaml) run with `redocly respect` against this Worker under
// `wrangler dev`; used by scripts/test-reference.mjs, which passes the
// directory of the reference files.
//
//  1. A throw-away local D1 state (all migrations) with a local admin account
//     whose random secret exists only in this process (its SHA-256 in D1).
//  2. `wrangler dev` on a free port of 127.0.0.1; wait for /healthz.
//  3. A temporary copy laid out as the Arazzo files expect (arazzo/*.yaml next
//     to ../openapi.yaml, the reference description), rewritten:
//       - `Basic Og==` -> the local admin credential,
//       - the 2023 dates -> the same weekdays in the future (a whole number of
//         weeks later), checked against GET /museum-hours to be open days,
//       - `$.name == '...'` -> RFC 9535 `$[?@.name == '...']` (respect 2.x
//         does not match the legacy form),
//       - x-serverUrl -> the local server + /v1.1.
//  4. `redocly respect` on both files: all 3 workflows must pass.
//  5. A negative run with a wrong password must FAIL (every workflow), so a
//     server that answers a wrong status cannot pass.
//  6. The server is stopped whatever happens.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { basicAuthorization } from "./accounts.mjs";
import { logProgress as log } from "./cli.mjs";
import { addDays, daysBetween } from "./dates.mjs";
import { withLocalServer } from "./local-state.mjs";
import { tempDir } from "./process-end.mjs";
import { runRedocly } from "./redocly.mjs";

const ARAZZO_FILES = ["museum-api.arazzo.yaml", "museum-tickets.arazzo.yaml"];
const EXPECTED_WORKFLOWS = ["get-museum-hours", "events-crud", "get-museum-tickets"];

/** The open days from `startDate` on, as GET /museum-hours lists them (a few pages). */
async function openDays(origin, authorization, startDate) {
  const days = new Set();
  let path = `/v1.1/museum-hours?startDate=${startDate}&limit=30`;
  for (let page = 0; path && page < 6; page++) {
    const res = await fetch(`${origin}${path}`, { headers: { Authorization: authorization } });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
    for (const entry of await res.json()) days.add(entry.date);
    path = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("Link") ?? "")?.[1];
  }
  return days;
}

/**
 * The number of days to move every 2023 date by: a whole number of weeks (so
 * each keeps its weekday), the smallest that puts all of them after today and
 * on days the museum is open (the general ticket needs an open day).
 */
async function dateShift(origin, authorization, dates) {
  // Tomorrow in UTC is at least tomorrow in the museum's time zone (America/*).
  const tomorrow = addDays(new Date().toISOString().slice(0, 10), 1);
  const open = await openDays(origin, authorization, tomorrow);
  const earliest = dates.reduce((a, b) => (a < b ? a : b));
  let weeks = Math.ceil(daysBetween(earliest, tomorrow) / 7);
  for (let tries = 0; tries < 20; tries++, weeks++) {
    const shift = weeks * 7;
    if (dates.every((date) => open.has(addDays(date, shift)))) return shift;
  }
  throw new Error(`no whole-week shift puts ${dates.join(", ")} on open days (open: ${[...open].slice(0, 10).join(", ")}...)`);
}

function replaceAll(text, pattern, replacement, what, file) {
  let count = 0;
  const result = text.replace(pattern, (...match) => {
    count++;
    return typeof replacement === "function" ? replacement(...match) : replacement;
  });
  if (count === 0) throw new Error(`${file}: nothing to rewrite for ${what}; did the reference Arazzo file change?`);
  return { text: result, count };
}

/** Lays out a rewritten copy (arazzo/*.yaml + openapi.yaml) in `dir`. */
function writeWorkflows(referenceDir, dir, { authorization, serverUrl, shiftDays }) {
  mkdirSync(join(dir, "arazzo"), { recursive: true });
  copyFileSync(join(referenceDir, "museum-openapi-1.1.1.yaml"), join(dir, "openapi.yaml"));
  const changes = [];
  for (const file of ARAZZO_FILES) {
    let text = readFileSync(join(referenceDir, file), "utf8");
    const steps = [
      ["the placeholder credential", /Basic Og==/g, authorization],
      ["the 2023 dates", /\b2023-\d\d-\d\d\b/g, (date) => addDays(date, shiftDays)],
      ["the x-serverUrl", /x-serverUrl: *"[^"]*"/g, `x-serverUrl: "${serverUrl}"`],
    ];
    if (text.includes("$.name ==")) {
      steps.push(["legacy JSONPath criteria", /condition: \$\.name == ('[^']*')/g, (_m, name) => `condition: $[?@.name == ${name}]`]);
    }
    for (const [what, pattern, replacement] of steps) {
      if (what === "the 2023 dates" && !/\b2023-/.test(text)) continue;
      const result = replaceAll(text, pattern, replacement, what, file);
      text = result.text;
      changes.push(`${file}: ${what} (${result.count})`);
    }
    for (const leftover of ["Og==", "2023-", "$.name ==", "localhost:4000"]) {
      if (text.includes(leftover)) throw new Error(`${file}: "${leftover}" is still in the rewritten copy`);
    }
    writeFileSync(join(dir, "arazzo", file), text);
  }
  return changes;
}

/** Runs `redocly respect` on both files; returns its exit status and per-workflow results. */
async function respect(dir, label) {
  const jsonOutput = join(dir, `respect-${label}.json`);
  log(`redocly respect (${label}): ${ARAZZO_FILES.join(", ")}`);
  const run = await runRedocly(
    ["respect", ...ARAZZO_FILES.map((f) => join("arazzo", f)), "--json-output", jsonOutput, "--max-fetch-timeout", "20000"],
    { cwd: dir, extraEnv: { NO_COLOR: "1" } },
  );
  const output = run.output.replace(/^.*[║╔╚].*\n/gm, "");
  let report;
  try {
    report = JSON.parse(readFileSync(jsonOutput, "utf8"));
  } catch {
    report = undefined;
  }
  return { status: run.status, output, ...workflowResults(report) };
}

/**
 * From respect's JSON output: `workflows` maps each top-level workflow of each
 * file to "passed" / "failed" (a workflow called from another one is not
 * counted again), `statusCodes` lists every response status its steps saw.
 */
function workflowResults(report) {
  const results = { workflows: {}, statusCodes: [] };
  for (const file of Object.values(report?.files ?? {})) {
    for (const workflow of file.executedWorkflows ?? []) {
      results.workflows[workflow.workflowId] = workflow.status === "success" ? "passed" : "failed";
      for (const step of workflow.executedSteps ?? []) {
        if (step.response?.statusCode !== undefined) results.statusCodes.push(step.response.statusCode);
      }
    }
  }
  return results;
}

/** The real run: all 3 workflows must pass. Returns a failure message or null. */
async function passingRun(referenceDir, options) {
  const dir = tempDir("museum-e2e-arazzo-");
  try {
    for (const change of writeWorkflows(referenceDir, dir.path, options)) log(`rewrote ${change}`);
    const run = await respect(dir.path, "admin");
    console.log(run.output);
    log(`workflows: ${JSON.stringify(run.workflows)}; statuses seen: ${run.statusCodes.join(", ")}`);
    const passed = EXPECTED_WORKFLOWS.filter((id) => run.workflows[id] === "passed");
    // Every workflow file ran, and nothing else did (3 workflows, not more, not fewer).
    const exactlyThese = Object.keys(run.workflows).length === EXPECTED_WORKFLOWS.length;
    if (run.status === 0 && exactlyThese && passed.length === EXPECTED_WORKFLOWS.length) {
      log(`PASS: all ${passed.length} workflows passed (${passed.join(", ")})`);
      return null;
    }
    return `respect exited ${run.status}; passed ${passed.length} of ${EXPECTED_WORKFLOWS.length} workflows (${EXPECTED_WORKFLOWS.join(", ")})`;
  } finally {
    dir.remove();
  }
}

/**
 * The negative run: a wrong password makes the server answer 401, and
 * respect must report every workflow as failed. (Run last: failed logins
 * count towards the client's login throttle.) Returns a failure message or null.
 */
async function negativeRun(referenceDir, options) {
  const dir = tempDir("museum-e2e-arazzo-negative-");
  try {
    writeWorkflows(referenceDir, dir.path, options);
    const run = await respect(dir.path, "wrong-credential");
    log(`negative run (wrong password): respect exited ${run.status}; workflows: ${JSON.stringify(run.workflows)}; statuses seen: ${run.statusCodes.join(", ")}`);
    const wronglyPassed = EXPECTED_WORKFLOWS.filter((id) => run.workflows[id] !== "failed");
    const allUnauthorized = run.statusCodes.length > 0 && run.statusCodes.every((code) => code === 401);
    if (run.status !== 0 && wronglyPassed.length === 0 && allUnauthorized) {
      log(`PASS: the negative run failed all ${EXPECTED_WORKFLOWS.length} workflows on 401, as it must`);
      return null;
    }
    console.error(run.output);
    return `the negative run must fail every workflow, on 401s only; it exited ${run.status}, not failed: ${wronglyPassed.join(", ") || "none"}, statuses: ${run.statusCodes.join(", ")}`;
  } finally {
    dir.remove();
  }
}

/**
 * Runs the workflows of `referenceDir` against a fresh `wrangler dev`: they
 * must all pass, and all fail with a wrong password. Returns the failures
 * (empty when everything held).
 */
export async function runArazzoWorkflows(referenceDir) {
  const admin = "e2e-admin";
  return withLocalServer({ accounts: { [admin]: "admin" } }, async (server, state) => {
    const { authorization } = state.accounts[admin];
    log(`local admin account "${admin}" created in ${state.persistTo}`);
    const serverUrl = `${server.origin}/v1.1`;
    const referenceDates = [...new Set(ARAZZO_FILES.flatMap((f) => readFileSync(join(referenceDir, f), "utf8").match(/\b2023-\d\d-\d\d\b/g) ?? []))];
    const shiftDays = await dateShift(server.origin, authorization, referenceDates);
    log(`2023 dates move ${shiftDays} days (${shiftDays / 7} weeks): ${referenceDates.map((d) => `${d} -> ${addDays(d, shiftDays)}`).join(", ")}`);
    const failures = [await passingRun(referenceDir, { authorization, serverUrl, shiftDays })];
    const wrong = basicAuthorization(admin, "not-the-secret");
    failures.push(await negativeRun(referenceDir, { authorization: wrong, serverUrl, shiftDays }));
    return failures.filter(Boolean);
  });
}
