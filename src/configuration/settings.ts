// The Worker's plain settings (wrangler.toml [vars], docs/operations.md) and
// the one schema that reads them, for the Worker and `npm run preflight`
// alike. A value that is missing or does not parse falls back to its
// production default: a typo must neither switch a protection off nor fail
// every request (the preflight and the Worker's log name it). Money is the
// exception: CURRENCY has no default, and nothing is sold or shown in a
// guessed one. Prices are the database's (ticket categories, events).
import { z } from "@hono/zod-openapi";

/** A setting as read: its value (or its fallback), and whether it was left out or set to something that does not parse. */
type Read<T> = { value: T; missing: boolean; malformed: boolean };

/** A setting whose value is missing or does not parse (never the value itself). */
export type SettingIssue = {
  name: string;
  /** What a value must be, in words, e.g. `a whole number from 0 to 240`. */
  expects: string;
  missing: boolean;
  /** The value used instead, as [vars] writes it; null: none, what needs the setting is refused (503). */
  fallback: string | null;
};

/** A setting read as `schema`; missing or malformed, `fallback` (null: a required setting). */
function setting<T, F extends T | null>(schema: z.ZodType<T>, expects: string, fallback: F) {
  const read = z.unknown().optional().transform((input): Read<T | F> => {
    if (input === undefined) return { value: fallback, missing: true, malformed: false };
    const parsed = schema.safeParse(input);
    return parsed.success ? { value: parsed.data, missing: false, malformed: false } : { value: fallback, missing: false, malformed: true };
  });
  return { read, expects, fallback };
}

/** A whole number in [min, max] written as text. */
const wholeNumber = (min: number, max: number, fallback: number) =>
  setting(
    z.string().trim().regex(/^\d{1,9}$/).transform(Number).pipe(z.number().min(min).max(max)),
    `a whole number from ${min} to ${max}`,
    fallback,
  );

const flag = (fallback: boolean) =>
  setting(
    z.enum(["true", "false"]).transform((value) => value === "true"),
    '"true" or "false"',
    fallback,
  );

const timeZone = z.string().refine((name) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
});

const SETTINGS = {
  /** The museum's IANA time zone: what "today" and "now" mean for sales, hours and admission. */
  MUSEUM_TIMEZONE: setting(timeZone, 'an IANA time zone such as "America/New_York"', "America/New_York"),
  /** The ISO 4217 code of the museum's currency, shown with every total and refund: no default. */
  CURRENCY: setting(z.string().trim().regex(/^[A-Z]{3}$/), 'an ISO 4217 code such as "USD"', null),
  /** How long before its entry time a timed ticket is admitted at a gate. */
  ADMISSION_EARLY_MINUTES: wholeNumber(0, 240, 15),
  /** Failed logins from one client before it is throttled, and the window they are counted in. */
  LOGIN_FAILURE_BUDGET: wholeNumber(1, 10_000, 10),
  LOGIN_FAILURE_WINDOW_SECONDS: wholeNumber(1, 86_400, 300),
  /** Browser origins allowed to call the API, comma-separated exact origins; empty: CORS off. */
  CORS_ALLOWED_ORIGINS: setting(z.string(), "comma-separated origins", ""),
  /** Webhook delivery: first retry delay, attempts in all, and the sweep's grace period. */
  WEBHOOK_RETRY_BASE_SECONDS: wholeNumber(0, 3600, 30),
  WEBHOOK_MAX_ATTEMPTS: wholeNumber(1, 10, 8),
  WEBHOOK_SWEEP_GRACE_SECONDS: wholeNumber(0, 86_400, 300),
  /** Local development only: http and loopback subscriber URLs. */
  WEBHOOK_ALLOW_LOOPBACK: flag(false),
  /** Render each sold ticket's image ahead, off the response path. */
  PRERENDER_TICKET_IMAGES: flag(false),
};

type Name = keyof typeof SETTINGS;
const NAMES = Object.keys(SETTINGS) as Name[];

const SettingsSchema = z.object(
  Object.fromEntries(NAMES.map((name) => [name, SETTINGS[name].read])) as { [N in Name]: (typeof SETTINGS)[N]["read"] },
);

/** The settings, typed: each its value or its default; CURRENCY null when missing or malformed. */
export type Settings = { [N in Name]: z.output<(typeof SETTINGS)[N]["read"]>["value"] };

/** Reads the settings of `env` (the Worker's bindings, or a [vars] table); other keys are ignored. */
export function parseSettings(env: object): { settings: Settings; issues: SettingIssue[] } {
  const read = SettingsSchema.parse(env);
  const settings = Object.fromEntries(NAMES.map((name) => [name, read[name].value])) as Settings;
  const issues = NAMES
    .filter((name) => read[name].malformed || (read[name].missing && SETTINGS[name].fallback === null))
    .map((name) => ({
      name,
      expects: SETTINGS[name].expects,
      missing: read[name].missing,
      fallback: SETTINGS[name].fallback === null ? null : String(SETTINGS[name].fallback),
    }));
  return { settings, issues };
}
