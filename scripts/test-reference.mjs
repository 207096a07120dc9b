#!/usr/bin/env node
// `npm run test:reference`: keeps the project honest against Redocly's Museum
// API reference (MIT), where it is at hand: ../shared/reference next to this
// repository, or MUSEUM_REFERENCE_DIR. The reference files are never copied
// into the repository; only facts are (test/contract/reference-operations.json).
//
//  1. facts: each museum-openapi-<version>.yaml, reduced to its facts
//     (tools/lib/openapi-facts.mjs), must equal the committed fixture, which
//     `npm test` compares the served document with. `--write` regenerates
//     the fixture instead (after a reference update; review the diff).
//  2. workflows: Redocly's Arazzo workflows run with `redocly respect`
//     against `wrangler dev` (tools/lib/arazzo-workflows.mjs). `npm run
//     test:e2e` runs only this part.
//
// Without the reference it says what it needs and exits 0.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { log, parseCommandLine, runMain, UsageError } from "../tools/lib/cli.mjs";
import { documentFacts } from "../tools/lib/openapi-facts.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";
import { runArazzoWorkflows } from "../tools/lib/arazzo-workflows.mjs";

const REFERENCE_DIR = process.env.MUSEUM_REFERENCE_DIR ?? join(ROOT, "..", "shared", "reference");
const VERSIONS = ["1.1.1", "1.2.1"];
const FIXTURE = join(ROOT, "test", "contract", "reference-operations.json");
const NEEDED = [...VERSIONS.map((v) => `museum-openapi-${v}.yaml`), "museum-api.arazzo.yaml", "museum-tickets.arazzo.yaml"];
const USAGE = `usage: npm run test:reference [-- --write | --facts-only | --workflows-only]
       npm run test:e2e   (the Arazzo workflows only: test:reference --workflows-only)
  --write           regenerate the fixture from the reference instead of comparing (review the diff)
  --facts-only      only compare the fixture with the reference
  --workflows-only  only run the Arazzo workflows against wrangler dev`;

const FIXTURE_NOTE =
  "Facts of Redocly's Museum API descriptions (MIT), per version: operations and webhooks with their parameters, bodies and responses as types and required lists; no descriptions or examples. Written by `npm run test:reference -- --write`; `npm test` compares the served /v1.1/openapi.json with the 1.1.1 entry.";

function referenceFacts() {
  const facts = { $comment: FIXTURE_NOTE };
  for (const version of VERSIONS) {
    facts[version] = documentFacts(parseYaml(readFileSync(join(REFERENCE_DIR, `museum-openapi-${version}.yaml`), "utf8")));
  }
  return facts;
}

/** The paths (a.b[2].c) at which two JSON values differ. */
function differences(a, b, at = "$") {
  if (isDeepStrictEqual(a, b)) return [];
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return [at];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((key) => differences(a[key], b[key], Array.isArray(a) ? `${at}[${key}]` : `${at}.${key}`));
}

function checkFacts({ write }) {
  const facts = referenceFacts();
  if (write) {
    writeFileSync(FIXTURE, `${JSON.stringify(facts, null, 2)}\n`);
    log(`wrote ${FIXTURE} (${VERSIONS.join(", ")})`);
    return [];
  }
  const committed = JSON.parse(readFileSync(FIXTURE, "utf8"));
  const diff = differences(committed, facts);
  if (diff.length === 0) log(`PASS: the fixture holds the facts of the reference ${VERSIONS.join(" and ")}`);
  return diff.map((path) => `the fixture differs from the reference at ${path} (regenerate with --write and review)`);
}

async function main(argv) {
  const { values } = parseCommandLine(
    argv,
    { write: { type: "boolean" }, "facts-only": { type: "boolean" }, "workflows-only": { type: "boolean" } },
    { allowPositionals: false },
  );
  if (values["facts-only"] && values["workflows-only"]) throw new UsageError("choose one of --facts-only and --workflows-only");
  const missing = NEEDED.filter((file) => !existsSync(join(REFERENCE_DIR, file)));
  if (missing.length > 0) {
    log(`test:reference needs Redocly's Museum API reference files in ${REFERENCE_DIR}
(or a directory named by MUSEUM_REFERENCE_DIR); missing: ${missing.join(", ")}.
Nothing to check here: \`npm test\` still compares the served document with the
committed facts (test/contract/reference-operations.json).`);
    return;
  }
  const failures = [];
  if (!values["workflows-only"]) failures.push(...checkFacts({ write: values.write === true }));
  if (!values["facts-only"] && !values.write) failures.push(...(await runArazzoWorkflows(REFERENCE_DIR)));
  if (failures.length > 0) throw new Error(`test:reference failed:\n  - ${failures.join("\n  - ")}`);
  log("PASS: test:reference");
}

await runMain(main, USAGE);
