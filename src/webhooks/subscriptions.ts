/**
 * Subscriptions: the rules and order of steps behind /webhooks.
 */
import { Batch, type Db, runStep } from "../platform/batch";
import { validationProblem } from "../http/errors";
import { ProblemError } from "../http/problem";
import * as statements from "./statements";
import type { CreateWebhookRequest, Webhook, WebhookDelivery } from "./schemas";
import { generateSecret, sealSecret } from "./signing";
import { checkWebhookUrl } from "./url-rules";
import type { Configuration } from "../configuration";

function toWebhook(row: statements.SubscriptionRow): Webhook {
  return {
    webhookId: row.webhook_id,
    url: row.url,
    ...(row.description !== null ? { description: row.description } : {}),
    createdAt: row.created_at,
  };
}

export function webhookNotFound(webhookId: string) {
  return new ProblemError(404, { detail: `No webhook subscription with id ${webhookId}.` });
}

/** Creates a subscription; its secret is returned here and nowhere else. */
export async function createSubscription(
  db: Db,
  config: Pick<Configuration, "settings" | "sealingKeys">,
  input: CreateWebhookRequest,
): Promise<Webhook & { secret: string }> {
  const verdict = checkWebhookUrl(input.url, { allowLoopback: config.settings.WEBHOOK_ALLOW_LOOPBACK });
  if (!verdict.ok) throw validationProblem([{ path: "url", message: verdict.reason }]);
  const webhookId = crypto.randomUUID();
  const secret = generateSecret();
  const sealed = await sealSecret(config.sealingKeys, webhookId, secret);
  const row = await runStep(statements.insertSubscription(db, {
    webhookId,
    url: verdict.url,
    description: input.description ?? null,
    secretSealed: sealed.sealed,
    secretKeyId: sealed.keyId,
  }));
  if (!row) {
    throw new ProblemError(409, {
      detail: `At most ${statements.MAX_SUBSCRIPTIONS} webhook subscriptions may exist; delete one first.`,
    });
  }
  return { ...toWebhook(row), secret };
}

export async function listSubscriptions(db: Db): Promise<Webhook[]> {
  return (await runStep(statements.selectSubscriptions(db))).map(toWebhook);
}

/** A live subscription, or null. */
export async function findSubscription(db: Db, webhookId: string): Promise<Webhook | null> {
  const row = await runStep(statements.selectSubscription(db, webhookId));
  return row && toWebhook(row);
}

/** Deletes a subscription and ends its unfinished deliveries, in one batch; false when no live one has that id. */
export async function deleteSubscription(db: Db, webhookId: string): Promise<boolean> {
  const batch = new Batch(db);
  const [endDeliveries, deleteIt] = statements.softDeleteSubscription(db, webhookId);
  batch.add(endDeliveries);
  const deleted = batch.add(deleteIt);
  await batch.run();
  return deleted.value;
}

/** A live subscription and its latest deliveries, in one round trip; null when there is no such subscription. */
export async function findSubscriptionDeliveries(
  db: Db,
  webhookId: string,
): Promise<{ subscription: Webhook; deliveries: WebhookDelivery[] } | null> {
  const batch = new Batch(db);
  const subscription = batch.add(statements.selectSubscription(db, webhookId));
  const deliveries = batch.add(statements.selectDeliveries(db, webhookId));
  await batch.run();
  return (
    subscription.value && {
      subscription: toWebhook(subscription.value),
      deliveries: deliveries.value.map((d) => ({
        deliveryId: d.delivery_id,
        eventId: d.event_id,
        attempts: d.attempts,
        status: d.status,
        ...(d.response_status !== null ? { responseStatus: d.response_status } : {}),
        ...(d.last_attempt_at !== null ? { lastAttemptAt: d.last_attempt_at } : {}),
      })),
    }
  );
}
