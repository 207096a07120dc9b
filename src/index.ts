import { createApp } from "./app";
import { loginFailurePolicy, purgeExpiredLoginFailures } from "./accounts/login-failures";
import { purgeExpiredIdempotencyKeys } from "./idempotency/keys";
import { log } from "./platform/log";
import { settingsOf } from "./settings";
import { deliverBatch } from "./webhooks/deliver";
import { type DeliveryMessage, sweepUnsentDeliveries } from "./webhooks/outbox";

const app = createApp();

export default {
  fetch: app.fetch,
  /**
   * Cron Trigger: forgets Idempotency-Keys past their 24 hours and failed-login
   * windows that have passed; re-sends webhook deliveries the Queue never got.
   */
  async scheduled(_controller, env) {
    const purged = await purgeExpiredIdempotencyKeys(env.DB);
    log.info("purged expired idempotency keys", { purged });
    const loginFailures = await purgeExpiredLoginFailures(env.DB, loginFailurePolicy(settingsOf(env)).windowMs);
    log.info("purged expired login failures", { purged: loginFailures });
    const resent = await sweepUnsentDeliveries(env);
    log.info("re-sent unsent webhook deliveries", { resent });
  },
  /** The webhook-deliveries queue (wrangler.toml [[queues.consumers]]). */
  async queue(batch, env, ctx) {
    await deliverBatch(batch as MessageBatch<DeliveryMessage>, env, ctx);
  },
} satisfies ExportedHandler<Env>;
