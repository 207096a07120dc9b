// The checks of `npm run preflight`: what in a wrangler configuration would
// break a first deploy of this Worker, per environment, each with its fix.
// Offline: the configuration through wrangler's own reader, the newest
// compatibility date from the installed workerd binary.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { tempDir } from "./process-end.mjs";
import { srcModules } from "./src-modules.mjs";
import { ROOT } from "./wrangler.mjs";

/**
 * Secrets the Worker cannot run without (src/ticket-image, src/webhooks/signing.ts).
 * test/tools/preflight.test.mjs proves this list against what src/ reads.
 */
export const REQUIRED_SECRETS = ["TICKET_CODE_KEYS", "TICKET_SIGNING_KEY", "WEBHOOK_SECRET_KEY"];
/** Secrets src/ reads only while a key is being rolled (docs/operations.md). */
export const ROLLOVER_SECRETS = ["TICKET_SIGNING_KEYS_PREVIOUS", "WEBHOOK_SECRET_KEY_PREVIOUS"];
/** Plain settings src/ reads that [vars] may leave out (the signing key's id, `K1` by default). */
export const OPTIONAL_VARS = ["TICKET_SIGNING_KEY_ID"];

const DB_BINDING = "DB";
const WEBHOOK_QUEUE_BINDING = "WEBHOOK_QUEUE";
/** The ids wrangler.toml ships with until an operator puts real ones in. */
const PLACEHOLDER_DATABASE_ID = /^00000000-0000-4000-8000-00000000000\d$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Every environment of the configuration at `configPath`, as `wrangler deploy`
 * would use it: `{ name: "production" | <env>, env: undefined | <env>, config }`.
 */
export async function readEnvironments(configPath) {
  const { experimental_readRawConfig, unstable_readConfig } = await import("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: configPath });
  const names = [undefined, ...Object.keys(rawConfig.env ?? {})];
  return names.map((env) => ({
    name: env ?? "production",
    env,
    config: unstable_readConfig({ config: configPath, env }, { hideWarnings: true }),
  }));
}

/**
 * The newest compatibility date the installed runtime serves: workerd (the
 * one wrangler runs) is asked with a date far ahead and names its newest in
 * the refusal. Its package's `compatibilityDate` is the fallback (that one
 * is the release's date, often a few days older than the binary's limit).
 */
export function newestCompatibilityDate() {
  const fromWrangler = createRequire(createRequire(join(ROOT, "package.json")).resolve("wrangler/package.json"));
  const workerdDir = dirname(fromWrangler.resolve("workerd/package.json"));
  const dir = tempDir("museum-preflight-");
  try {
    const config = join(dir.path, "probe.capnp");
    writeFileSync(
      config,
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "probe", worker = .probe)]);
const probe :Workerd.Worker = (
  modules = [(name = "probe.js", esModule = "export default {}")],
  compatibilityDate = "2999-12-31",
);
`,
    );
    const result = spawnSync(join(workerdDir, "bin", "workerd"), ["test", config], { encoding: "utf8", timeout: 30_000 });
    const newest = /newest date supported by this server binary is "(\d{4}-\d{2}-\d{2})"/.exec(`${result.stderr}${result.stdout}`);
    if (newest) return newest[1];
  } finally {
    dir.remove();
  }
  return fromWrangler("workerd").compatibilityDate;
}

function envFlag(environment) {
  return environment.env ? ` --env ${environment.env}` : "";
}

/** `[[d1_databases]]`, `[[queues.producers]]`… as written for this environment. */
function section(environment, key) {
  return environment.env ? `[[env.${environment.env}.${key}]]` : `[[${key}]]`;
}

function table(environment, key) {
  return environment.env ? `[env.${environment.env}.${key}]` : `[${key}]`;
}

function database(environment) {
  return environment.config.d1_databases.find((d) => d.binding === DB_BINDING);
}

function webhookQueues(environment) {
  const producer = environment.config.queues.producers?.find((p) => p.binding === WEBHOOK_QUEUE_BINDING);
  const consumer = producer && environment.config.queues.consumers?.find((c) => c.queue === producer.queue);
  return { producer, consumer };
}

function checkDatabase(environment, { allowPlaceholderIds }) {
  const db = database(environment);
  if (!db) {
    return [{
      problem: `no D1 database with binding "${DB_BINDING}"`,
      fix: `add ${section(environment, "d1_databases")} with binding = "${DB_BINDING}", database_name, database_id and migrations_dir = "migrations"`,
    }];
  }
  const create = `npx wrangler d1 create ${db.database_name ?? "<name>"}`;
  if (!db.database_id || !UUID.test(db.database_id)) {
    return [{ problem: `database_id of "${DB_BINDING}" is missing or not a uuid`, fix: `${create}, then put the printed database_id into ${section(environment, "d1_databases")}` }];
  }
  if (PLACEHOLDER_DATABASE_ID.test(db.database_id) && !allowPlaceholderIds) {
    return [{
      problem: `database_id ${db.database_id} is the repository's placeholder`,
      fix: `${create}, then put the printed database_id into ${section(environment, "d1_databases")} and commit it (it is not a secret)`,
    }];
  }
  return [];
}

function checkQueues(environment) {
  const { producer, consumer } = webhookQueues(environment);
  if (!producer) {
    return [{
      problem: `no queue producer with binding "${WEBHOOK_QUEUE_BINDING}" (webhook deliveries)`,
      fix: `add ${section(environment, "queues.producers")} binding = "${WEBHOOK_QUEUE_BINDING}", queue = "<queue>"; create it: npx wrangler queues create <queue>`,
    }];
  }
  if (!consumer) {
    return [{
      problem: `no queue consumer for "${producer.queue}": deliveries would never be sent`,
      fix: `add ${section(environment, "queues.consumers")} queue = "${producer.queue}", max_retries = 10, dead_letter_queue = "${producer.queue}-dlq"`,
    }];
  }
  if (!consumer.dead_letter_queue || consumer.dead_letter_queue === producer.queue) {
    return [{
      problem: `the consumer of "${producer.queue}" has no dead-letter queue of its own: messages of a crashing consumer would be lost`,
      fix: `set dead_letter_queue = "${producer.queue}-dlq" in ${section(environment, "queues.consumers")}; create it: npx wrangler queues create ${producer.queue}-dlq`,
    }];
  }
  return [];
}

function checkCompatibilityDate(environment, { newestCompatibilityDate, today }) {
  const date = environment.config.compatibility_date;
  if (!date) return [{ problem: "no compatibility_date", fix: `set compatibility_date = "${newestCompatibilityDate}"` }];
  const problems = [];
  if (date > newestCompatibilityDate) {
    problems.push({
      problem: `compatibility_date ${date} is later than the installed runtime serves (${newestCompatibilityDate}): wrangler dev and the tests would refuse to start`,
      fix: `set compatibility_date = "${newestCompatibilityDate}" (or upgrade wrangler and the vitest pool together)`,
    });
  }
  if (date > today) {
    problems.push({ problem: `compatibility_date ${date} is in the future: Cloudflare refuses the upload`, fix: `set compatibility_date to ${today} or earlier` });
  }
  return problems;
}

/**
 * Secrets must not be plain [vars]. A `[secrets]` table is refused: with one,
 * plain `wrangler dev` reads only its keys from .dev.vars and drops the local
 * settings (WEBHOOK_ALLOW_LOOPBACK...); the secrets are set with `wrangler
 * secret put` and listed by `wrangler secret list` (docs/operations.md).
 */
function checkSecrets(environment) {
  const problems = [];
  if (environment.config.secrets !== undefined && environment.name === "production") {
    problems.push({
      problem: `${table(environment, "secrets")} is set: plain \`wrangler dev\` would then read only its keys from .dev.vars and ignore the local settings there`,
      fix: `remove ${table(environment, "secrets")} (and every [env.*.secrets]); set ${REQUIRED_SECRETS.join(", ")} with: npx wrangler secret put <NAME>${envFlag(environment)}`,
    });
  }
  const inVars = [...REQUIRED_SECRETS, ...ROLLOVER_SECRETS].filter((name) => name in (environment.config.vars ?? {}));
  if (inVars.length > 0) {
    problems.push({
      problem: `${inVars.join(", ")} in ${table(environment, "vars")}: plain text, visible in the dashboard`,
      fix: `remove them from ${table(environment, "vars")} and set them with: npx wrangler secret put <NAME>${envFlag(environment)}`,
    });
  }
  return problems;
}

function checkCrons(environment) {
  if ((environment.config.triggers?.crons ?? []).length > 0) return [];
  return [{
    problem: "no cron trigger: expired Idempotency-Keys and login windows would never be purged, and webhook deliveries the Queue never got never re-sent",
    fix: `add ${table(environment, "triggers")} crons = ["17 * * * *"] (hourly)`,
  }];
}

function checkLoopback(environment) {
  if (environment.config.vars?.WEBHOOK_ALLOW_LOOPBACK !== "true") return [];
  return [{
    problem: `WEBHOOK_ALLOW_LOOPBACK = "true" in ${table(environment, "vars")}: subscriptions could target http and loopback hosts`,
    fix: `set WEBHOOK_ALLOW_LOOPBACK = "false" (local development sets it in .dev.vars)`,
  }];
}

/**
 * The settings of [vars], read by the Worker's own schema
 * (src/configuration/settings.ts): one the Worker would refuse to sell
 * without (CURRENCY: 503, never a default), or one whose value it would
 * replace by its default.
 */
function checkSettings(environment) {
  const { issues } = srcModules({ settings: "./src/configuration/settings.ts" }).settings.parseSettings(environment.config.vars ?? {});
  return issues.map(({ name, expects, missing, fallback }) =>
    fallback === null
      ? {
          problem: `${name} in ${table(environment, "vars")} is ${missing ? "missing" : "malformed"}: tickets would not be sold (503 not-configured)`,
          fix: `set ${name} to ${expects}`,
        }
      : {
          problem: `${name} in ${table(environment, "vars")} is malformed: the Worker would use its default, ${JSON.stringify(fallback)}`,
          fix: `set ${name} to ${expects}, or remove it for the default`,
        },
  );
}

/** A non-production environment that shares production's database or queues. */
function checkSeparation(environment, production) {
  if (!production || environment === production) return [];
  const problems = [];
  const db = database(environment);
  const prodDb = database(production);
  if (db && prodDb && (db.database_id === prodDb.database_id || db.database_name === prodDb.database_name)) {
    problems.push({
      problem: `shares production's D1 database (${db.database_name} / ${db.database_id})`,
      fix: `npx wrangler d1 create museum-api-${environment.name}, then put its name and id into ${section(environment, "d1_databases")}`,
    });
  }
  const names = (e) => {
    const { producer, consumer } = webhookQueues(e);
    return [producer?.queue, consumer?.dead_letter_queue].filter(Boolean);
  };
  const shared = names(environment).filter((name) => names(production).includes(name));
  if (shared.length > 0) {
    problems.push({
      problem: `shares production's queues (${shared.join(", ")})`,
      fix: `give it its own: npx wrangler queues create museum-webhooks-${environment.name} and museum-webhooks-${environment.name}-dlq, named in ${section(environment, "queues.producers")} and ${section(environment, "queues.consumers")}`,
    });
  }
  return problems;
}

/**
 * The problems of every environment: `[{ environment, problem, fix }]`.
 * `facts`: `newestCompatibilityDate`, `today` (YYYY-MM-DD, UTC),
 * `allowPlaceholderIds` (the repository's own placeholder database ids pass).
 */
export function checkEnvironments(environments, facts) {
  const production = environments.find((e) => e.env === undefined);
  return environments.flatMap((environment) =>
    [
      ...checkDatabase(environment, facts),
      ...checkQueues(environment),
      ...checkCompatibilityDate(environment, facts),
      ...checkSecrets(environment),
      ...checkCrons(environment),
      ...checkLoopback(environment),
      ...checkSettings(environment),
      ...checkSeparation(environment, production),
    ].map((p) => ({ environment: environment.name, ...p })),
  );
}
