/**
 * The Queue consumer: one message per delivery, all messages of a batch at
 * once, so one slow or failing subscriber never holds up another.
 *
 * For each message: read the delivery and its subscription (the record of
 * truth), skip it when the subscription was deleted or the delivery already
 * ended, POST the event with Standard Webhooks headers (10 s timeout,
 * redirects not followed), record the attempt, then ack, or retry through the
 * Queue with exponential backoff and jitter until the last attempt, which
 * ends the delivery as `failed`.
 *
 * A batch waits at most ANSWER_WAIT_MS for a subscriber's answer. A slower
 * attempt goes on in `waitUntil` and records itself when it ends; its message
 * is retried for after the attempt's whole timeout plus its backoff, and then
 * finds the delivery ended or due again. So a hanging subscriber costs its
 * batch one second, not ten, and the deliveries queued behind it are not held
 * up (wrangler dev's local Queue runs one batch at a time). The Worker's
 * `queue_consumer_no_wait_for_wait_until` flag (wrangler.toml) makes the
 * batch end when the handler returns, with the Queue told only what the
 * handler decided.
 */
import { log } from "../platform/log";
import { type DeliveryMessage } from "./outbox";
import { runStep } from "../platform/batch";
import { type AttemptOutcome, recordAttempt, selectDeliveryWork } from "./statements";
import { openSecret, signatureHeader } from "./signing";
import type { Configuration } from "../configuration";

const DELIVERY_TIMEOUT_MS = 10_000;
/** How long a batch waits for one subscriber's answer before leaving the attempt to finish in the background. */
const ANSWER_WAIT_MS = 1_000;
/** Each retry waits this many times longer than the one before. */
const BACKOFF_FACTOR = 3;
/** The longest delay a Queue message can be retried with. */
const MAX_DELAY_SECONDS = 43_200;
const USER_AGENT = "museum-api-webhooks/1";

/** Seconds before the attempt after `attempt` (1-based): base × 3^(attempt-1), plus up to 25 % jitter. */
function retryDelaySeconds(attempt: number, baseSeconds: number, random = Math.random()): number {
  const delay = baseSeconds * BACKOFF_FACTOR ** (attempt - 1);
  return Math.min(MAX_DELAY_SECONDS, Math.round(delay * (1 + random / 4)));
}

/** Sends one delivery; returns the response status, or null for a network error or timeout. */
async function post(url: string, headers: Record<string, string>, body: string): Promise<number | null> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": USER_AGENT, ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    // The answer's body is of no interest; release the connection.
    await response.body?.cancel();
    return response.status;
  } catch {
    return null;
  }
}

function outcomeOf(responseStatus: number | null, attempt: number, maxAttempts: number, retryInSeconds: number): AttemptOutcome {
  if (responseStatus !== null && responseStatus >= 200 && responseStatus <= 299) {
    return { status: "delivered", responseStatus, retryInSeconds: null };
  }
  if (attempt >= maxAttempts) return { status: "failed", responseStatus, retryInSeconds: null };
  return { status: "retrying", responseStatus, retryInSeconds };
}

type Background = Pick<ExecutionContext, "waitUntil">;

async function deliverOne(message: Message<DeliveryMessage>, db: D1Database, config: Configuration, ctx: Background) {
  const { settings } = config;
  const { deliveryId } = message.body;
  const work = await runStep(selectDeliveryWork(db, deliveryId));
  if (!work || work.deleted_at !== null || work.status === "delivered" || work.status === "failed") {
    message.ack();
    return;
  }
  const secret = await openSecret(config.sealingKeys, work.webhook_id, { sealed: work.secret_sealed, keyId: work.secret_key_id });
  // The payload is JSON as SQLite writes it (a price reads `60.0`); sent as JavaScript writes it, as GET does.
  const body = JSON.stringify(JSON.parse(work.payload));
  const timestamp = Math.floor(Date.now() / 1000);
  const attempt = work.attempts + 1;
  const retryInSeconds = retryDelaySeconds(attempt, settings.WEBHOOK_RETRY_BASE_SECONDS);
  const attempted = post(
    work.url,
    {
      "webhook-id": work.delivery_id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signatureHeader(secret, work.delivery_id, timestamp, body),
    },
    body,
  ).then(async (responseStatus) => {
    const outcome = outcomeOf(responseStatus, attempt, settings.WEBHOOK_MAX_ATTEMPTS, retryInSeconds);
    const recorded = await runStep(recordAttempt(db, deliveryId, work.attempts, outcome));
    log.info("webhook delivery attempt", { deliveryId, webhookId: work.webhook_id, attempt, responseStatus, status: outcome.status });
    return { outcome, recorded };
  });
  const answered = await Promise.race([attempted, scheduler.wait(ANSWER_WAIT_MS).then(() => null)]);
  if (answered === null) {
    // No answer yet: the attempt ends (at the latest at its timeout) in the
    // background and records itself; the message comes back after that.
    ctx.waitUntil(attempted.catch((error: unknown) => logUnexpected(deliveryId, error)));
    message.retry({ delaySeconds: Math.min(MAX_DELAY_SECONDS, DELIVERY_TIMEOUT_MS / 1000 + retryInSeconds) });
    return;
  }
  if (answered.recorded && answered.outcome.retryInSeconds !== null) message.retry({ delaySeconds: answered.outcome.retryInSeconds });
  else message.ack();
}

/** D1 unreachable, a key that does not open the secret...: logged; the Queue tries the message again later. */
function logUnexpected(deliveryId: string | undefined, error: unknown): void {
  log.error("webhook delivery failed unexpectedly", {
    deliveryId,
    error: error instanceof Error ? error.message : String(error),
  });
}

export async function deliverBatch(
  batch: MessageBatch<DeliveryMessage>,
  db: D1Database,
  config: Configuration,
  ctx: Background,
): Promise<void> {
  await Promise.all(
    batch.messages.map((message) =>
      deliverOne(message, db, config, ctx).catch((error: unknown) => {
        // After max_retries the message goes to the DLQ.
        logUnexpected(message.body?.deliveryId, error);
        message.retry({ delaySeconds: config.settings.WEBHOOK_RETRY_BASE_SECONDS });
      }),
    ),
  );
}
