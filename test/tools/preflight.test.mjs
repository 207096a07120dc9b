// `npm run preflight` on small configurations: the ready one passes; each
// one broken in a single way gets exactly its problem. Run by `npm test`
// (node --test test/tools/).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../tools/lib/process-end.mjs";
import { ROOT, WRANGLER_CONFIG } from "../../tools/lib/wrangler.mjs";
import {
  OPTIONAL_VARS,
  REQUIRED_SECRETS,
  ROLLOVER_SECRETS,
  checkEnvironments,
  newestCompatibilityDate,
  readEnvironments,
} from "../../tools/lib/preflight-checks.mjs";

const READY = readFileSync(join(import.meta.dirname, "fixtures", "preflight-ready.toml"), "utf8");
const FACTS = { newestCompatibilityDate: "2026-05-03", today: "2026-11-23", allowPlaceholderIds: false };
const dir = tempDir("museum-preflight-test-");

let written = 0;
/** The ready configuration with each [search, replacement] applied once (each must match). */
function variant(...edits) {
  let text = READY;
  for (const [search, replacement] of edits) {
    assert.ok(text.includes(search), `fixture has no ${JSON.stringify(search)}`);
    text = text.replace(search, replacement);
  }
  const path = join(dir.path, `wrangler-${++written}.toml`);
  writeFileSync(path, text);
  return path;
}

async function problemsOf(path, facts = {}) {
  return checkEnvironments(await readEnvironments(path), { ...FACTS, ...facts });
}

/** Asserts exactly one problem, in `environment`, whose text matches `pattern`; returns it. */
function single(problems, environment, pattern) {
  assert.equal(problems.length, 1, `expected one problem, got ${JSON.stringify(problems, null, 2)}`);
  assert.equal(problems[0].environment, environment);
  assert.match(problems[0].problem, pattern);
  assert.ok(problems[0].fix.length > 0);
  return problems[0];
}

const PROD_ID = 'database_id = "3f1e8c4a-5b6d-4e7f-8a9b-0c1d2e3f4a5b"';
const STAGING_ID = 'database_id = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"';

describe("preflight checks", () => {
  it("finds nothing wrong in the ready configuration, production and staging", async () => {
    const environments = await readEnvironments(variant());
    assert.deepEqual(environments.map((e) => e.name), ["production", "staging"]);
    assert.deepEqual(checkEnvironments(environments, FACTS), []);
  });

  it("names a placeholder database id with the command that creates the database", async () => {
    const problems = await problemsOf(variant([STAGING_ID, 'database_id = "00000000-0000-4000-8000-000000000002"']));
    const problem = single(problems, "staging", /placeholder/);
    assert.match(problem.fix, /npx wrangler d1 create museum-api-staging/);
    assert.match(problem.fix, /\[\[env\.staging\.d1_databases\]\]/);
    assert.deepEqual(await problemsOf(variant([STAGING_ID, 'database_id = "00000000-0000-4000-8000-000000000002"']), { allowPlaceholderIds: true }), []);
  });

  it("refuses a missing or malformed database id even with --allow-placeholder-ids", async () => {
    single(await problemsOf(variant([PROD_ID, 'database_id = "my-db"']), { allowPlaceholderIds: true }), "production", /not a uuid/);
    single(await problemsOf(variant([PROD_ID, ""])), "production", /missing/);
  });

  it("finds a missing queue producer, consumer or dead-letter queue", async () => {
    const noProducer = variant(['[[queues.producers]]\nbinding = "WEBHOOK_QUEUE"\nqueue = "museum-webhooks"\n', ""]);
    single(await problemsOf(noProducer), "production", /no queue producer/);
    const noConsumer = variant(['[[env.staging.queues.consumers]]\nqueue = "museum-webhooks-staging"', '[[env.staging.queues.consumers]]\nqueue = "something-else"']);
    single(await problemsOf(noConsumer), "staging", /no queue consumer for "museum-webhooks-staging"/);
    const noDlq = variant(['dead_letter_queue = "museum-webhooks-dlq"\n', ""]);
    const problem = single(await problemsOf(noDlq), "production", /dead-letter/);
    assert.match(problem.fix, /npx wrangler queues create museum-webhooks-dlq/);
  });

  it("finds a compatibility date the runtime cannot serve, or one in the future", async () => {
    const late = variant(['compatibility_date = "2026-04-01"', 'compatibility_date = "2026-06-01"']);
    const problems = await problemsOf(late);
    assert.deepEqual(problems.map((p) => p.environment), ["production", "staging"]); // staging inherits the date
    assert.match(problems[0].problem, /later than the installed runtime serves \(2026-05-03\)/);
    single(await problemsOf(variant(), { today: "2026-03-31" }).then((p) => p.filter((x) => x.environment === "production")), "production", /in the future/);
  });

  it("finds a [secrets] table (plain wrangler dev would drop .dev.vars settings), and a secret put in [vars]", async () => {
    const problem = single(await problemsOf(variant(['[vars]\n', '[secrets]\nrequired = ["TICKET_SIGNING_KEY"]\n\n[vars]\n'])), "production", /\[secrets\] is set/);
    assert.match(problem.fix, /npx wrangler secret put <NAME>/);
    // (a required secret in [vars] too is refused by wrangler's own reader; an older key is not)
    single(await problemsOf(variant(['[vars]\n', '[vars]\nTICKET_SIGNING_KEYS_PREVIOUS = "abc"\n'])), "production", /TICKET_SIGNING_KEYS_PREVIOUS in \[vars\]/);
  });

  it("finds a staging environment that shares production's database or queues", async () => {
    const sameDb = await problemsOf(variant([STAGING_ID, PROD_ID]));
    single(sameDb, "staging", /shares production's D1 database/);
    const sameName = await problemsOf(variant(['database_name = "museum-api-staging"', 'database_name = "museum-api"']));
    single(sameName, "staging", /shares production's D1 database/);
    const sameDlq = await problemsOf(variant(['dead_letter_queue = "museum-webhooks-staging-dlq"', 'dead_letter_queue = "museum-webhooks-dlq"']));
    single(sameDlq, "staging", /shares production's queues \(museum-webhooks-dlq\)/);
  });

  it("finds missing cron triggers, in production and in an environment that turns them off", async () => {
    single(await problemsOf(variant(['[triggers]\ncrons = ["17 * * * *"]', ""])).then((p) => p.filter((x) => x.environment === "production")), "production", /no cron trigger/);
    single(await problemsOf(variant(['[env.staging.vars]', '[env.staging.triggers]\ncrons = []\n\n[env.staging.vars]'])), "staging", /no cron trigger/);
  });

  it("finds WEBHOOK_ALLOW_LOOPBACK turned on in a deployed environment", async () => {
    const problems = await problemsOf(variant(['[env.staging.vars]\nWEBHOOK_ALLOW_LOOPBACK = "false"', '[env.staging.vars]\nWEBHOOK_ALLOW_LOOPBACK = "true"']));
    single(problems, "staging", /WEBHOOK_ALLOW_LOOPBACK/);
  });

  it("finds a currency that the Worker would refuse to sell with", async () => {
    const staging = '[env.staging.vars]\nWEBHOOK_ALLOW_LOOPBACK = "false"\nCURRENCY = "USD"';
    single(await problemsOf(variant([staging, staging.replace('"USD"', '"euro"')])), "staging", /CURRENCY .* is malformed/);
    const production = await problemsOf(variant(['CURRENCY = "USD"\n\n[[queues', '\n[[queues']));
    single(production, "production", /CURRENCY .* is missing/);
  });

  it("finds a setting whose value the Worker would replace by its default, as the Worker's own schema reads it", async () => {
    const staging = '[env.staging.vars]\nWEBHOOK_ALLOW_LOOPBACK = "false"';
    const problem = single(await problemsOf(variant([staging, `${staging}\nADMISSION_EARLY_MINUTES = "fifteen"`])), "staging", /ADMISSION_EARLY_MINUTES .* is malformed: the Worker would use its default, "15"/);
    assert.match(problem.fix, /a whole number from 0 to 240, or remove it/);
    assert.equal(problem.problem.includes("fifteen"), false);
    single(await problemsOf(variant(['[vars]\n', '[vars]\nMUSEUM_TIMEZONE = "Mars/Olympus_Mons"\n'])), "production", /MUSEUM_TIMEZONE .* is malformed/);
    // Left out, a plain setting takes its default: nothing to fix.
    assert.deepEqual(await problemsOf(variant(['WEBHOOK_ALLOW_LOOPBACK = "false"\nCURRENCY = "USD"\n\n[[queues', 'CURRENCY = "USD"\n\n[[queues'])), []);
  });

  it("reads the newest compatibility date from the installed workerd", () => {
    assert.match(newestCompatibilityDate(), /^\d{4}-\d{2}-\d{2}$/);
  });
});

describe("the preflight's secret lists", () => {
  /**
   * Upper-case names src/ reads from its bindings: `env.X`, `keys.X`, and the
   * fields of the bindings' types and schemas, which live in configuration/
   * and env.ts (elsewhere an upper-case key is data, such as OCTO's error codes).
   */
  function namesReadBySrc() {
    const names = new Set();
    const BINDING_FIELDS = [join(ROOT, "src", "configuration"), join(ROOT, "src", "env.ts")];
    const walk = (path) => {
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        const full = join(path, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith(".ts")) {
          const text = readFileSync(full, "utf8");
          for (const m of text.matchAll(/\b(?:env|keys|bindings)\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]);
          if (!BINDING_FIELDS.some((place) => full.startsWith(place))) continue;
          for (const m of text.matchAll(/^\s+([A-Z][A-Z0-9_]{2,})\??:/gm)) names.add(m[1]);
        }
      }
    };
    walk(join(ROOT, "src"));
    return names;
  }

  it("cover every secret src/ reads, and name only what it reads", async () => {
    const [production] = await readEnvironments(WRANGLER_CONFIG);
    const { config } = production;
    const bindings = [...config.d1_databases.map((d) => d.binding), ...(config.queues.producers ?? []).map((p) => p.binding)];
    const known = new Set([...Object.keys(config.vars), ...bindings, ...REQUIRED_SECRETS, ...ROLLOVER_SECRETS, ...OPTIONAL_VARS]);
    const read = namesReadBySrc();
    const unknown = [...read].filter((name) => !known.has(name));
    assert.deepEqual(unknown, [], "src/ reads a binding that is neither a var, a binding nor a secret the preflight knows: add it to REQUIRED_SECRETS, ROLLOVER_SECRETS or OPTIONAL_VARS in tools/lib/preflight-checks.mjs");
    for (const name of [...REQUIRED_SECRETS, ...ROLLOVER_SECRETS, ...OPTIONAL_VARS]) assert.ok(read.has(name), `src/ no longer reads ${name}`);
  });
});

describe("npm run preflight", () => {
  const run = (...args) => spawnSync(process.execPath, [join(ROOT, "scripts", "preflight.mjs"), ...args], { encoding: "utf8" });

  it("exits 0 with ready, and 1 with each problem and its fix", () => {
    const ready = run("--config", variant());
    assert.equal(ready.status, 0, ready.stderr);
    assert.match(ready.stdout, /^ready: production, staging\n$/);
    const broken = run("--config", variant([PROD_ID, 'database_id = "00000000-0000-4000-8000-000000000001"'], ['[triggers]\ncrons = ["17 * * * *"]', ""]));
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /✗ production: database_id 00000000-0000-4000-8000-000000000001 is the repository's placeholder\n\s+fix: npx wrangler d1 create museum-api,/);
    assert.match(broken.stderr, /✗ production: no cron trigger/);
    assert.match(broken.stderr, /✗ staging: no cron trigger/); // staging inherited production's triggers
  });

  it("passes the repository's own configuration when its placeholder ids are allowed", () => {
    const result = run("--allow-placeholder-ids");
    assert.equal(result.status, 0, result.stderr);
    assert.equal(run().status, 1, "the committed placeholder ids must fail a real preflight");
  });

  it("prints its usage with --help (exit 0), and refuses an unknown option (exit 2)", () => {
    const help = run("--help");
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^usage: npm run preflight/);
    const unknown = run("--frobnicate");
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /Unknown option '--frobnicate'/);
  });
});
