/**
 * The outbox: recorded deliveries go to the Queue right after the event
 * change that recorded them (off the request path, in waitUntil, with no
 * write back), and from the scheduled sweep for any the Queue never got (a
 * failed send, a crash between commit and send), told by their age. The
 * events service records them in the change's own batch
 * (`insertEventDeliveries` of ./statements.ts).
 */
import { runStep } from "../platform/batch";
import { log } from "../platform/log";
import { markResent, selectUnattemptedDeliveries } from "./statements";
import type { Configuration } from "../configuration";

/** A Queue message: one delivery, by id (the row in D1 holds the rest). */
export type DeliveryMessage = { deliveryId: string };

export type OutboxEnv = {
  DB: D1Database;
  WEBHOOK_QUEUE: Queue;
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
export async function sweepUnsentDeliveries(
  env: OutboxEnv,
  settings: Pick<Configuration["settings"], "WEBHOOK_SWEEP_GRACE_SECONDS">,
): Promise<number> {
  const ids = await runStep(selectUnattemptedDeliveries(env.DB, settings.WEBHOOK_SWEEP_GRACE_SECONDS, SWEEP_LIMIT));
  const resent = await enqueueDeliveries(env.WEBHOOK_QUEUE, ids);
  if (resent.length > 0) await runStep(markResent(env.DB, resent));
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
