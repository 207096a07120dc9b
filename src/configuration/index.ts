/**
 * The Worker's configuration: every setting of [vars], the currency, both
 * ticket key sets and the webhook sealing keys, parsed into one typed object
 * once per env object. Workers hands every request of an isolate the same env
 * object (until its bindings change), so that is once per isolate; the
 * `configuration` middleware puts it on the context (`c.var.config`), and the
 * Queue consumer and the Cron Trigger read it here.
 *
 * A plain setting that is malformed falls back to its default (settings.ts;
 * logged once per parse). The currency and the key sets have none: each is
 * its value or why it is unusable, and an operation that needs one asks with
 * `need`, which answers 503 not-configured before anything is written.
 * /healthz lists the same problems (`configurationProblems`).
 */
import { z } from "@hono/zod-openapi";
import { notConfigured } from "../http/problem";
import { type MuseumNow, museumNowIn } from "../platform/dates";
import { log } from "../platform/log";
import { type CodeKeySet, codeKeysFromEnv, signingKeyAt } from "./code-keys";
import { parseSettings, type Settings } from "./settings";
import { type SigningKeys, signingKeysFromEnv } from "./signing-keys";

/** A part that has no default: its value, or why it is unusable (naming the variable, never a value). */
type Part<T> = { value: T; problem: null } | { value: null; problem: string };

/** The keys that seal webhook secrets at rest (webhooks/signing.ts), checked where they are used. */
export type SealingKeys = { WEBHOOK_SECRET_KEY: string; WEBHOOK_SECRET_KEY_PREVIOUS?: string };

export type Configuration = {
  /** The plain settings, each a valid value or its default. */
  settings: Omit<Settings, "CURRENCY">;
  /** The museum's date, time of day and UTC offset at `at` (now by default), in MUSEUM_TIMEZONE. */
  museumNow: (at?: Date) => MuseumNow;
  /** The ISO 4217 code of the museum's currency (CURRENCY). */
  currency: Part<string>;
  /** The Ed25519 keys of ticket codes (TICKET_CODE_KEYS). */
  codeKeys: Part<CodeKeySet>;
  /** The HMAC keys of the codes printed before those (TICKET_SIGNING_KEY…), which admission still checks. */
  signingKeys: Part<SigningKeys>;
  sealingKeys: SealingKeys;
};

const secret = z.string().optional().catch(undefined);
const SecretsSchema = z.object({
  TICKET_CODE_KEYS: secret,
  TICKET_SIGNING_KEY: secret,
  TICKET_SIGNING_KEY_ID: secret,
  TICKET_SIGNING_KEYS_PREVIOUS: secret,
  WEBHOOK_SECRET_KEY: secret,
  WEBHOOK_SECRET_KEY_PREVIOUS: secret,
});

function partOf<T>(parse: () => T): Part<T> {
  try {
    return { value: parse(), problem: null };
  } catch (error) {
    return { value: null, problem: error instanceof Error ? error.message : String(error) };
  }
}

function parseConfiguration(env: object): Configuration {
  const {
    settings: { CURRENCY, ...settings },
    issues,
  } = parseSettings(env);
  for (const issue of issues) {
    if (issue.fallback !== null) log.warn("setting malformed: its default is used", { setting: issue.name, default: issue.fallback });
  }
  const secrets = SecretsSchema.parse(env);
  return {
    settings,
    museumNow: (at) => museumNowIn(settings.MUSEUM_TIMEZONE, at),
    currency: CURRENCY === null ? { value: null, problem: "CURRENCY is missing or malformed." } : { value: CURRENCY, problem: null },
    codeKeys: partOf(() => codeKeysFromEnv(secrets)),
    signingKeys: partOf(() => signingKeysFromEnv(secrets)),
    sealingKeys: {
      WEBHOOK_SECRET_KEY: secrets.WEBHOOK_SECRET_KEY ?? "",
      ...(secrets.WEBHOOK_SECRET_KEY_PREVIOUS ? { WEBHOOK_SECRET_KEY_PREVIOUS: secrets.WEBHOOK_SECRET_KEY_PREVIOUS } : {}),
    },
  };
}

const parsed = new WeakMap<object, Configuration>();

/** The configuration of `env` (the Worker's bindings), parsed on the first call for that object. */
export function configurationOf(env: object): Configuration {
  let config = parsed.get(env);
  if (!config) {
    config = parseConfiguration(env);
    parsed.set(env, config);
  }
  return config;
}

/** What an operation may need that has no default. */
type Needs = { currency: string; codeKeys: CodeKeySet; signingKeys: SigningKeys };

/** What the 503 says for each (naming no setting: /healthz and the log do). */
const REFUSALS: Record<keyof Needs, string> = {
  currency: "Amounts cannot be shown right now.",
  codeKeys: "Ticket codes cannot be signed or checked right now.",
  signingKeys: "Ticket codes cannot be signed or checked right now.",
};

/**
 * The parts `names` of `config`, or 503 not-configured for the first that is
 * unusable (logged with why). Asked before anything is written.
 */
export function need<N extends keyof Needs>(config: Configuration, ...names: N[]): Pick<Needs, N> {
  const parts = {} as Record<N, unknown>;
  for (const name of names) {
    const part: Part<unknown> = config[name];
    if (part.problem !== null) {
      log.error("not configured", { setting: name, reason: part.problem });
      throw notConfigured(REFUSALS[name]);
    }
    parts[name] = part.value;
  }
  return parts as Pick<Needs, N>;
}

/** What a sale needs that is missing or malformed at `now`, each naming its variable (never a value): /healthz's list. */
export function configurationProblems(config: Configuration, now: Date): string[] {
  const { codeKeys } = config;
  const codeKeysProblem =
    codeKeys.problem ?? (signingKeyAt(codeKeys.value, now) ? null : "TICKET_CODE_KEYS: no key with `d` has a signsFrom that has come, so none signs now.");
  return [codeKeysProblem, config.signingKeys.problem, config.currency.problem].filter((problem) => problem !== null);
}

export type { CodeKeySet, SigningKeys };
