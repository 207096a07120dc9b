/**
 * The webhooks feature's entry point for the events feature, and the outbox:
 * - recording one delivery per subscription in the very D1 batch that
 *   changes an event (`eventDeliveriesBatch`), the body being the event as
 *   the events feature renders it, so this feature never reads events;
 * - handing recorded deliveries to the Queue: right after the change (off
 *   the request path, in waitUntil, with no write back), and from the
 *   scheduled sweep for any the Queue never got (a failed send, a crash
 *   between commit and send), told by their age.
 */
import type { BatchRunner, Db } from "../env";
import { log } from "../platform/log";
import { findUnattemptedDeliveries, insertEventDeliveries, markResent } from "./queries";
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
 * Sends one message per delivery; returns the ids the Queue accepted. A
 * failed send is logged, not thrown: those rows stay pending and the sweep
 * sends them once they are older than its grace period.
 */
async function enqueueDeliveries(queue: Queue, deliveryIds: string[]): Promise<string[]> {
  const accepted: string[] = [];
  for (let i = 0; i < deliveryIds.length; i += SEND_BATCH_LIMIT) {
    const ids = deliveryIds.slice(i, i + SEND_BATCH_LIMIT);
    try {
      await queue.sendBatch(ids.map((deliveryId) => ({ body: { deliveryId } satisfies DeliveryMessage })));
      accepted.push(...ids);
    } catch (error) {
      log.error("webhook deliveries not handed to the queue; the sweep will", {
        deliveries: ids.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return accepted;
}

/**
 * Re-sends the deliveries still without an attempt a grace period after they
 * were last handed to the Queue, and notes when (so each is re-sent at most
 * once per grace period); returns how many were sent.
 */
export async function sweepUnsentDeliveries(env: OutboxEnv): Promise<number> {
  const { sweepGraceSeconds } = webhookSettings(env);
  const ids = await findUnattemptedDeliveries(env.DB, sweepGraceSeconds, SWEEP_LIMIT);
  const resent = await enqueueDeliveries(env.WEBHOOK_QUEUE, ids);
  if (resent.length > 0) await markResent(env.DB, resent);
  return resent.length;
}

/**
 * After an event change: its deliveries go to the Queue once the response is
 * on its way. The send starts on a timer, after the handler has returned:
 * started at once, the messages' serialisation and the Queue's subrequest
 * would run before the response leaves (docs/performance.md, "The request's
 * own cost"). Nothing is written back: the request's one D1 round trip stays
 * its only one, and a row the Queue never got is found by its age.
 */
export function publishDeliveries(
  context: { env: Pick<OutboxEnv, "WEBHOOK_QUEUE">; executionCtx: Pick<ExecutionContext, "waitUntil"> },
  deliveryIds: string[],
): void {
  if (deliveryIds.length === 0) return;
  const queue = context.env.WEBHOOK_QUEUE;
  context.executionCtx.waitUntil(scheduler.wait(0).then(() => enqueueDeliveries(queue, deliveryIds)));
}
