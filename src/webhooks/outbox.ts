/**
 * Handing recorded deliveries to the Queue: right after an event change
 * (off the request path, in waitUntil), and from the scheduled sweep for
 * any the Queue never got (a failed send, a crash between commit and send).
 */
import type { Db } from "../env";
import { log } from "../lib/log";
import { findUnsentDeliveries, markEnqueued } from "./queries";
import { webhookSettings } from "./settings";

/** A Queue message: one delivery, by id (the row in D1 holds the rest). */
export type DeliveryMessage = { deliveryId: string };

export type OutboxEnv = {
  DB: D1Database;
  WEBHOOK_QUEUE: Queue;
  WEBHOOK_SWEEP_GRACE_SECONDS?: string;
};

// sendBatch takes at most 100 messages.
const SEND_BATCH_LIMIT = 100;
/** The sweep re-sends at most this many deliveries per run. */
const SWEEP_LIMIT = 500;

/**
 * Sends one message per delivery and notes which the Queue accepted. A failed
 * send is logged, not thrown: the rows stay unsent and the sweep sends them later.
 */
export async function enqueueDeliveries(env: OutboxEnv, db: Db, deliveryIds: string[]): Promise<void> {
  for (let i = 0; i < deliveryIds.length; i += SEND_BATCH_LIMIT) {
    const ids = deliveryIds.slice(i, i + SEND_BATCH_LIMIT);
    try {
      await env.WEBHOOK_QUEUE.sendBatch(ids.map((deliveryId) => ({ body: { deliveryId } satisfies DeliveryMessage })));
      await markEnqueued(db, ids);
    } catch (error) {
      log.error("webhook deliveries not handed to the queue; the sweep will", {
        deliveries: ids.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/** Re-sends the deliveries the Queue never got; returns how many. */
export async function sweepUnsentDeliveries(env: OutboxEnv): Promise<number> {
  const { sweepGraceSeconds } = webhookSettings(env);
  const ids = await findUnsentDeliveries(env.DB, sweepGraceSeconds, SWEEP_LIMIT);
  await enqueueDeliveries(env, env.DB, ids);
  return ids.length;
}

/** After an event change: its deliveries go to the Queue once the response is on its way. */
export function publishDeliveries(
  context: { env: OutboxEnv; executionCtx: Pick<ExecutionContext, "waitUntil">; var: { db: Db } },
  deliveryIds: string[],
): void {
  if (deliveryIds.length === 0) return;
  context.executionCtx.waitUntil(enqueueDeliveries(context.env, context.var.db, deliveryIds));
}
