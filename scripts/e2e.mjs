// `npm run test:e2e`: Redocly's Arazzo workflows for the Museum API
// (../shared/reference/*.arazzo.yaml) run with `redocly respect` against this
// Worker under `wrangler dev`.
//
//  1. A throw-away local D1 state (all migrations) with a local admin account
//     whose random secret exists only in this process (its SHA-256 in D1).
//  2. `wrangler dev` on a free port of 127.0.0.1 in its own process group; wait
//     for /healthz.
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
//  6. The server's process group is ended whatever happens; no workerd survives.
//
// Without ../shared/reference this prints why it skipped and exits 0; under
// CI=true it fails instead.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  log,
  onProcessEnd,
  prepareLocalState,
  REFERENCE_DIR,
  requireReference,
  ROOT,
  startWranglerDev,
  tempDir,
} from "./e2e-server.mjs";

const ARAZZO_FILES = ["museum-api.arazzo.yaml", "museum-tickets.arazzo.yaml"];
const EXPECTED_WORKFLOWS = ["get-museum-hours", "events-crud", "get-museum-tickets"];
const REDOCLY = join(ROOT, "node_modules", "@redocly", "cli", "bin", "cli.js");
const DAY_MS = 86_400_000;

if (!requireReference("the Arazzo end-to-end workflows (npm run test:e2e)")) process.exit(0);

const addDays = (date, days) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

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
  let weeks = Math.ceil((Date.parse(tomorrow) - Date.parse(earliest)) / (7 * DAY_MS));
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
function writeWorkflows(dir, { authorization, serverUrl, shiftDays }) {
  mkdirSync(join(dir, "arazzo"), { recursive: true });
  copyFileSync(join(REFERENCE_DIR, "museum-openapi-1.1.1.yaml"), join(dir, "openapi.yaml"));
  const changes = [];
  for (const file of ARAZZO_FILES) {
    let text = readFileSync(join(REFERENCE_DIR, file), "utf8");
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
  const child = spawn(
    process.execPath,
    [REDOCLY, "respect", ...ARAZZO_FILES.map((f) => join("arazzo", f)), "--json-output", jsonOutput, "--max-fetch-timeout", "20000"],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    },
  );
  const hook = onProcessEnd(() => child.kill("SIGKILL"));
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
  const status = await new Promise((resolve) => child.on("close", (code) => resolve(code ?? 1)));
  clearTimeout(timer);
  hook.cancel();
  output = output.replace(/^.*[║╔╚].*\n/gm, "");
  let report;
  try {
    report = JSON.parse(readFileSync(jsonOutput, "utf8"));
  } catch {
    report = undefined;
  }
  return { status, output, ...workflowResults(report) };
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

let server;
let state;
const workDirs = [];
let failed = false;
try {
  state = prepareLocalState();
  log(`local admin account "${state.admin.name}" created in ${state.persistTo}`);
  server = await startWranglerDev({ persistTo: state.persistTo });
  const serverUrl = `${server.origin}/v1.1`;

  const referenceDates = ARAZZO_FILES.flatMap((f) => readFileSync(join(REFERENCE_DIR, f), "utf8").match(/\b2023-\d\d-\d\d\b/g) ?? []);
  const shiftDays = await dateShift(server.origin, state.authorization, [...new Set(referenceDates)]);
  log(`2023 dates move ${shiftDays} days (${shiftDays / 7} weeks): ${[...new Set(referenceDates)].map((d) => `${d} -> ${addDays(d, shiftDays)}`).join(", ")}`);

  // The real run: all 3 workflows must pass.
  const passDir = tempDir("museum-e2e-arazzo-");
  workDirs.push(passDir);
  for (const change of writeWorkflows(passDir.path, { authorization: state.authorization, serverUrl, shiftDays })) log(`rewrote ${change}`);
  const run = await respect(passDir.path, "admin");
  console.log(run.output);
  const passed = EXPECTED_WORKFLOWS.filter((id) => run.workflows[id] === "passed");
  // Every workflow file ran, and nothing else did (3 workflows, not more, not fewer).
  if (Object.keys(run.workflows).length !== EXPECTED_WORKFLOWS.length) passed.length = 0;
  log(`workflows: ${JSON.stringify(run.workflows)}; statuses seen: ${run.statusCodes.join(", ")}`);
  if (run.status !== 0 || passed.length !== EXPECTED_WORKFLOWS.length) {
    failed = true;
    console.error(`FAIL: respect exited ${run.status}; passed ${passed.length} of ${EXPECTED_WORKFLOWS.length} workflows (${EXPECTED_WORKFLOWS.join(", ")})`);
  } else {
    log(`PASS: all ${passed.length} workflows passed (${passed.join(", ")})`);
  }

  // The negative run: a wrong password makes the server answer 401, and
  // respect must report every workflow as failed. (Run last: failed logins
  // count towards the client's login throttle.)
  const failDir = tempDir("museum-e2e-arazzo-negative-");
  workDirs.push(failDir);
  const wrong = `Basic ${Buffer.from(`${state.admin.name}:not-the-secret`, "utf8").toString("base64")}`;
  writeWorkflows(failDir.path, { authorization: wrong, serverUrl, shiftDays });
  const negative = await respect(failDir.path, "wrong-credential");
  log(
    `negative run (wrong password): respect exited ${negative.status}; workflows: ${JSON.stringify(negative.workflows)}; statuses seen: ${negative.statusCodes.join(", ")}`,
  );
  const wronglyPassed = EXPECTED_WORKFLOWS.filter((id) => negative.workflows[id] !== "failed");
  const allUnauthorized = negative.statusCodes.length > 0 && negative.statusCodes.every((code) => code === 401);
  if (negative.status === 0 || wronglyPassed.length > 0 || !allUnauthorized) {
    failed = true;
    console.error(negative.output);
    console.error(
      `FAIL: the negative run must fail every workflow, on 401s only; it exited ${negative.status}, not failed: ${wronglyPassed.join(", ") || "none"}, statuses: ${negative.statusCodes.join(", ")}`,
    );
  } else {
    log(`PASS: the negative run failed all ${EXPECTED_WORKFLOWS.length} workflows on 401, as it must`);
  }
} catch (error) {
  failed = true;
  console.error(`FAIL: ${error?.stack ?? error}`);
} finally {
  if (server) {
    await server.stop().catch((error) => {
      failed = true;
      console.error(`FAIL: ${error}`);
    });
  }
  state?.cleanup();
  for (const dir of workDirs) dir.remove();
}
if (failed) process.exit(1);
log("PASS: the Arazzo workflows pass end to end, and fail on wrong statuses");
