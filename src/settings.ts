// The Worker's settings (wrangler.toml [vars], docs/operations.md), parsed
// once per env object into typed values. A value that is missing or out of
// range falls back to the production default: a typo in the configuration
// must neither switch a protection off nor fail every request. Money is the
// exception: a currency that does not parse is null, and nothing is sold in a
// default one (the sale answers 503; /healthz names the setting). Prices are
// the database's (ticket categories, events), not settings.
import { z } from "@hono/zod-openapi";
import { type MuseumNow, museumNowIn } from "./platform/dates";

/** A whole number in [min, max] written as text, or `fallback`. */
const wholeNumber = (min: number, max: number, fallback: number) =>
  z.string().trim().regex(/^\d{1,9}$/).transform(Number).pipe(z.number().min(min).max(max)).catch(fallback);

const flag = (fallback: boolean) =>
  z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .catch(fallback);

/** A setting money depends on: null when missing or malformed, never a default. */
const required = <T>(schema: z.ZodType<T>) =>
  z.unknown().optional().transform((value): T | null => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : null;
  });

const timeZone = z
  .string()
  .refine((name) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: name });
      return true;
    } catch {
      return false;
    }
  })
  .catch("America/New_York");

const SettingsSchema = z.object({
  /** The museum's IANA time zone: what "today" and "now" mean for sales, hours and admission. */
  MUSEUM_TIMEZONE: timeZone,
  /** The ISO 4217 code of the museum's currency, shown with every total and refund. */
  CURRENCY: required(z.string().trim().regex(/^[A-Z]{3}$/)),
  /** How long before its entry time a timed ticket is admitted at a gate. */
  ADMISSION_EARLY_MINUTES: wholeNumber(0, 240, 15),
  /** Failed logins from one client before it is throttled, and the window they are counted in. */
  LOGIN_FAILURE_BUDGET: wholeNumber(1, 10_000, 10),
  LOGIN_FAILURE_WINDOW_SECONDS: wholeNumber(1, 86_400, 300),
  /** Browser origins allowed to call the API, comma-separated exact origins; empty: CORS off. */
  CORS_ALLOWED_ORIGINS: z.string().catch(""),
  /** Webhook delivery: first retry delay, attempts in all, and the sweep's grace period. */
  WEBHOOK_RETRY_BASE_SECONDS: wholeNumber(0, 3600, 30),
  WEBHOOK_MAX_ATTEMPTS: wholeNumber(1, 10, 8),
  WEBHOOK_SWEEP_GRACE_SECONDS: wholeNumber(0, 86_400, 300),
  /** Local development only: http and loopback subscriber URLs. */
  WEBHOOK_ALLOW_LOOPBACK: flag(false),
  /** Render each sold ticket's image ahead, off the response path. */
  PRERENDER_TICKET_IMAGES: flag(false),
});

export type Settings = z.output<typeof SettingsSchema>;

const parsed = new WeakMap<object, Settings>();

/** The settings of `env` (the Worker's bindings), parsed on first use. */
export function settingsOf(env: object): Settings {
  let settings = parsed.get(env);
  if (!settings) {
    settings = SettingsSchema.parse(env);
    parsed.set(env, settings);
  }
  return settings;
}

/** The museum's date and time now, in its time zone (formatted once a minute per isolate). */
export function museumNowOf(env: object): MuseumNow {
  return museumNowIn(settingsOf(env).MUSEUM_TIMEZONE);
}

/** The settings money depends on that do not parse (their names), for /healthz and the preflight. */
export function invalidMoneySettings(settings: Settings): string[] {
  return (["CURRENCY"] as const).filter((name) => settings[name] === null);
}
