#!/usr/bin/env node
// The OCTO standard's own supplier validator (octotravel/validator, packaged
// in ../shared/octo) against /octo, served by plain `wrangler dev` on a fresh
// local D1 (docs/octo.md, "Conformance"). Passes only with no FAILED and no
// WARNING scenario (../shared/octo/run.sh itself fails on FAILED only).
//
//   npm run test:octo [-- --validator-dir <dir>] [--out <results.json>]
//   npm run test:octo -- --serve      the same museum, served until Ctrl-C (to look into a failure)
//
// The museum it validates: every migration, the sample data, a reseller (a
// sales account and its API key), and what the validator needs to run every
// scenario it has: general admission by entry slots on open days (a
// START_TIME product beside the events' OPENING_HOURS ones), an event
// sold out on one date (its sold-out scenario), and no sale for today (no
// hold cut short by the day's end during the run). Without ../shared/octo it
// says what it needs and passes, as the reference checks do.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { newKeyId, newSecret, sha256Hex } from "../tools/lib/accounts.mjs";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { addDays, museumToday } from "../tools/lib/dates.mjs";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { tempDir } from "../tools/lib/process-end.mjs";
import { recordingDb, sqlScript, statements } from "../tools/lib/statements.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";

const USAGE = `usage: npm run test:octo [-- --validator-dir <dir>] [--out <results.json>] [--serve]
  --validator-dir <dir>  where the validator is built (outside the repository; default: ${join(tmpdir(), "museum-octo-validator")})
  --out <file>           also keep the validator's full results (JSON)
  --serve                prepare and serve the museum it validates until Ctrl-C, printing its URL and key; validate nothing`;

const SHARED_OCTO = resolve(ROOT, "..", "shared", "octo");
/** The validator's scenarios in its 11 flows when none is skipped (../shared/octo/README.md). */
const ALL_SCENARIOS = 47;

const ADMIN = "octo-admin";
const RESELLER = "octo-reseller";

/**
 * The local server's options: every migration, the sample data, an admin, and
 * a reseller with its API key (`key`); wrangler's default log level (a line per request).
 */
function localMuseum(extra = {}) {
  const key = newSecret();
  const { accounts } = statements();
  const apiKey = accounts.insertApiKey(recordingDb, { keyId: newKeyId(), accountName: RESELLER, keySha256: sha256Hex(key) });
  const options = { database: "seeded", accounts: { [ADMIN]: "admin", [RESELLER]: "sales" }, sql: sqlScript([apiKey]), logLevel: "log", ...extra };
  return { key, options };
}

/** Calls /v1.1 as the admin; fails on an answer that is not 2xx. */
async function adminCall(origin, authorization, method, path, body) {
  const res = await fetch(`${origin}/v1.1${path}`, {
    method,
    headers: { Authorization: authorization, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /v1.1${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** What the validator needs of the museum beyond the sample data (see the header). */
async function prepareMuseum(origin, authorization) {
  const timed = { timeOpen: "09:00", timeClose: "17:00", entrySlotMinutes: 60, slotCapacity: 1000 };
  await adminCall(origin, authorization, "PUT", "/museum-hours/schedule", {
    sunday: null, monday: timed, tuesday: timed, wednesday: timed, thursday: timed, friday: timed, saturday: null,
  });
  const today = await museumToday();
  await adminCall(origin, authorization, "PUT", `/museum-hours/exceptions/${today}`, { closed: true, reason: "OCTO validation: no sale for today" });
  const date = addDays(today, 2);
  const event = await adminCall(origin, authorization, "POST", "/special-events", {
    name: "Preview night",
    location: "Great Hall",
    eventDescription: "One place, sold before the validation: the validator's sold-out availability.",
    dates: [date],
    price: 10,
    capacity: 1,
  });
  await adminCall(origin, authorization, "POST", "/tickets", { ticketType: "event", eventId: event.eventId, ticketDate: date, email: "preview@example.com" });
}

/** Runs ../shared/octo/run.sh, its output on this terminal; resolves with its exit code. */
function runValidator(validatorDir, baseUrl, key, out) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("bash", [join(SHARED_OCTO, "run.sh"), validatorDir, baseUrl, key, out], { stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

/** The scenarios of the results that are not SUCCESS, as `FLOW / scenario: RESULT`, and how many never ran. */
function unsuccessful(results) {
  const scenarios = results.flatMap((flow) => flow.scenarios.map((s) => ({ ...s, flow: flow.name })));
  const failed = scenarios.filter((s) => s.validationResult !== "SUCCESS").map((s) => `${s.flow} / ${s.name}: ${s.validationResult}`);
  // A run the validator cut short (its early termination) skips flows: every scenario must have run.
  return scenarios.length < ALL_SCENARIOS ? [...failed, `only ${scenarios.length} of ${ALL_SCENARIOS} scenarios ran`] : failed;
}

async function main(argv) {
  const { values: args } = parseCommandLine(
    argv,
    { "validator-dir": { type: "string" }, out: { type: "string" }, serve: { type: "boolean" }, help: { type: "boolean" } },
    { allowPositionals: false },
  );
  if (args.help) {
    log(USAGE);
    return;
  }
  if (args.serve) {
    const { key, options } = localMuseum({ inheritOutput: true });
    await withLocalServer(options, async (server, state) => {
      await prepareMuseum(server.origin, state.accounts[ADMIN].authorization);
      log(`==> serving ${server.origin}/octo (Ctrl-C to stop)
    curl -H 'Authorization: Bearer ${key}' ${server.origin}/octo/products
    bash ${join(SHARED_OCTO, "run.sh")} <validator dir> ${server.origin}/octo ${key}`);
      await server.exited;
    });
    return;
  }
  if (!existsSync(join(SHARED_OCTO, "run.sh"))) {
    log(`skipped: the OCTO validator is not beside this repository (${SHARED_OCTO}/run.sh); nothing to check.`);
    return;
  }
  const validatorDir = resolve(args["validator-dir"] ?? join(tmpdir(), "museum-octo-validator"));
  if (validatorDir.startsWith(`${ROOT}/`)) throw new UsageError("--validator-dir must be outside the repository");
  const results = args.out ? resolve(args.out) : join(tempDir("museum-octo-results-").path, "results.json");

  const started = performance.now();
  const { key, options } = localMuseum();
  await withLocalServer(options, async (server, state) => {
    await prepareMuseum(server.origin, state.accounts[ADMIN].authorization);
    log(`==> validating ${server.origin}/octo`);
    const code = await runValidator(validatorDir, `${server.origin}/octo`, key, results);
    const notSuccess = unsuccessful(JSON.parse(readFileSync(results, "utf8")));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (code !== 0 || notSuccess.length > 0) {
      throw new Error(`the OCTO validator found ${notSuccess.length} scenario(s) not SUCCESS (run.sh exit ${code}):\n  ${notSuccess.join("\n  ")}`);
    }
    log(`==> OCTO validation passed: all ${ALL_SCENARIOS} scenarios SUCCESS, no FAILED or WARNING (${seconds} s)`);
  });
}

await runMain(main, USAGE);
