#!/usr/bin/env node
// Fails when the deployable bundle (dist/index.js, written by
// `wrangler deploy --dry-run --outdir dist`) holds a test seam: test-only code
// lives in test/ (the test worker, test/support/worker.ts), never in src/.
import { readFileSync } from "node:fs";
import { exitOnHelp } from "../tools/lib/cli.mjs";

exitOnHelp(`usage: npm run build:check   (or: node scripts/check-bundle.mjs, after wrangler deploy --dry-run --outdir dist)
Fails when dist/index.js holds a test seam.`);

const BUNDLE = "dist/index.js";
const TEST_SEAMS = [
  "injectD1Faults",
  "withD1Faults",
  "d1RoundTrips",
  "setTestVars",
  "settleWaitUntil",
  "x-bench-d1-round-trips",
  "FAULT_INJECTION",
  "renderStats",
  "clearTicketImageMemory",
  "clearLoginCache",
];

let bundle;
try {
  bundle = readFileSync(BUNDLE, "utf8");
} catch {
  console.error(`check-bundle: ${BUNDLE} is missing; run \`wrangler deploy --dry-run --outdir dist\` first.`);
  process.exit(1);
}
const found = TEST_SEAMS.filter((name) => bundle.includes(name));
if (found.length > 0) {
  console.error(`check-bundle: ${BUNDLE} holds test seams: ${found.join(", ")}`);
  process.exit(1);
}
console.log(`check-bundle: ${BUNDLE} (${Math.round(bundle.length / 1024)} KiB) holds no test seam`);
