import { createApp } from "./app";
import { loginFailurePolicy, purgeExpiredLoginFailures } from "./accounts/login-failures";
import { purgeExpiredIdempotencyKeys } from "./idempotency/keys";
import { log } from "./platform/log";
import { configurationOf } from "./configuration";
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
    const { settings } = configurationOf(env);
    const purged = await purgeExpiredIdempotencyKeys(env.DB);
    log.info("purged expired idempotency keys", { purged });
    const loginFailures = await purgeExpiredLoginFailures(env.DB, loginFailurePolicy(settings).windowMs);
    log.info("purged expired login failures", { purged: loginFailures });
    const resent = await sweepUnsentDeliveries(env, settings);
    log.info("re-sent unsent webhook deliveries", { resent });
  },
  /** The webhook-deliveries queue (wrangler.toml [[queues.consumers]]). */
  async queue(batch, env, ctx) {
    await deliverBatch(batch as MessageBatch<DeliveryMessage>, env.DB, configurationOf(env), ctx);
  },
} satisfies ExportedHandler<Env>;
