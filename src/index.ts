import { createApp } from "./app";
import { loginFailurePolicy, purgeExpiredLoginFailures } from "./accounts/login-failures";
import { purgeExpiredIdempotencyKeys } from "./tickets/idempotency-queries";
import { log } from "./platform/log";

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron Trigger: forgets Idempotency-Keys past their 24 hours, and failed-login windows that have passed. */
  async scheduled(_controller, env) {
    const purged = await purgeExpiredIdempotencyKeys(env.DB);
    log.info("purged expired idempotency keys", { purged });
    const loginFailures = await purgeExpiredLoginFailures(env.DB, loginFailurePolicy(env).windowMs);
    log.info("purged expired login failures", { purged: loginFailures });
  },
} satisfies ExportedHandler<Env>;
