/**
 * The webhooks feature's entry point for the events feature, and the outbox:
 * - recording one delivery per subscription in the very D1 batch that
 *   changes an event (`eventDeliveriesBatch`), the body being the event as
 *   the events feature renders it, so this feature never reads events;
 * - handing recorded deliveries to the Queue: right after the change (off
 *   the request path, in waitUntil), and from the scheduled sweep for any
 *   the Queue never got (a failed send, a crash between commit and send).
 */
import type { BatchRunner, Db } from "../env";
import { log } from "../platform/log";
import { findUnsentDeliveries, insertEventDeliveries, markEnqueued } from "./queries";
import { webhookSettings } from "./settings";

/** What an event change publishes: the event, and how its body is read. */
export type EventPublication = {
  eventId: string;
  /**
   * A SELECT of one `payload` column, the body to deliver (JSON text), whose
   * only parameter is ?1, the event's id; no row (no such active event):
   * nothing is recorded.
   */
  payloadSql: string;
};

/** An event change's batch with the outbox's part, and the deliveries it recorded once it ran. */
export type EventDeliveriesBatch = { runBatch: BatchRunner; deliveryIds: () => string[] };

/**
 * Wraps `runBatch` (the event change's) so that the same batch, after the
 * change's own statements (the payload then reads the event as changed),
 * records one pending delivery per live subscription: both commit or
 * neither does, in one round trip. The caller's results are unchanged.
 */
export function eventDeliveriesBatch(db: Db, publication: EventPublication, runBatch: BatchRunner): EventDeliveriesBatch {
  let recorded: string[] = [];
  return {
    runBatch: async (statements) => {
      const results = await runBatch([...statements, insertEventDeliveries(db, publication.eventId, publication.payloadSql)]);
      recorded = (results.at(-1)!.results as { delivery_id: string }[]).map((row) => row.delivery_id);
      return results.slice(0, -1);
    },
    deliveryIds: () => recorded,
  };
}

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
