import { createApp } from "./app";
import { purgeExpiredIdempotencyKeys } from "./idempotency/queries";

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron Trigger: forgets Idempotency-Keys past their 24 hours. */
  async scheduled(_controller, env) {
    const purged = await purgeExpiredIdempotencyKeys(env.DB);
    console.log(JSON.stringify({ level: "info", message: "purged expired idempotency keys", purged }));
  },
} satisfies ExportedHandler<Env>;
