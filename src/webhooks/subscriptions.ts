/**
 * Subscriptions: the rules and order of steps behind /webhooks.
 */
import type { Db } from "../env";
import { validationProblem } from "../http/errors";
import { ProblemError } from "../http/problem";
import * as queries from "./queries";
import type { CreateWebhookRequest, Webhook } from "./schemas";
import { generateSecret, sealSecret, type SealingKeys } from "./signing";
import { checkWebhookUrl } from "./url-rules";

export type SubscriptionEnv = SealingKeys & { WEBHOOK_ALLOW_LOOPBACK?: string };

export function toWebhook(row: queries.SubscriptionRow): Webhook {
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
  env: SubscriptionEnv,
  input: CreateWebhookRequest,
): Promise<Webhook & { secret: string }> {
  const verdict = checkWebhookUrl(input.url, { allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === "true" });
  if (!verdict.ok) throw validationProblem([{ path: "url", message: verdict.reason }]);
  const webhookId = crypto.randomUUID();
  const secret = generateSecret();
  const sealed = await sealSecret(env, webhookId, secret);
  const row = await queries.insertSubscription(db, {
    webhookId,
    url: verdict.url,
    description: input.description ?? null,
    secretSealed: sealed.sealed,
    secretKeyId: sealed.keyId,
  });
  if (!row) {
    throw new ProblemError(409, {
      detail: `At most ${queries.MAX_SUBSCRIPTIONS} webhook subscriptions may exist; delete one first.`,
    });
  }
  return { ...toWebhook(row), secret };
}
