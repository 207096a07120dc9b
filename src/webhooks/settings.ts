import { z } from "@hono/zod-openapi";

/** Delivery settings from wrangler.toml's [vars] (docs/webhooks.md). */
export type WebhookSettings = {
  /** Delay before the first retry; each next one is 3 times longer (plus jitter). */
  retryBaseSeconds: number;
  /** Attempts in all, the first included, before a delivery is `failed`. */
  maxAttempts: number;
  /** Age after which the sweep re-sends a delivery the Queue never got. */
  sweepGraceSeconds: number;
  /** Local development only: http and loopback subscriber URLs. */
  allowLoopback: boolean;
};

type SettingsEnv = {
  WEBHOOK_RETRY_BASE_SECONDS?: string;
  WEBHOOK_MAX_ATTEMPTS?: string;
  WEBHOOK_SWEEP_GRACE_SECONDS?: string;
  WEBHOOK_ALLOW_LOOPBACK?: string;
};

// A missing or out-of-range value falls back to the production default: a
// typo in the configuration must neither stop deliveries nor retry forever.
const wholeNumber = (min: number, max: number, fallback: number) =>
  z.string().regex(/^\d{1,9}$/).transform(Number).pipe(z.number().min(min).max(max)).catch(fallback);

const SettingsSchema = z.object({
  WEBHOOK_RETRY_BASE_SECONDS: wholeNumber(0, 3600, 30),
  WEBHOOK_MAX_ATTEMPTS: wholeNumber(1, 10, 8),
  WEBHOOK_SWEEP_GRACE_SECONDS: wholeNumber(0, 86_400, 300),
});

export function webhookSettings(env: SettingsEnv): WebhookSettings {
  const parsed = SettingsSchema.parse(env);
  return {
    retryBaseSeconds: parsed.WEBHOOK_RETRY_BASE_SECONDS,
    maxAttempts: parsed.WEBHOOK_MAX_ATTEMPTS,
    sweepGraceSeconds: parsed.WEBHOOK_SWEEP_GRACE_SECONDS,
    allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === "true",
  };
}
