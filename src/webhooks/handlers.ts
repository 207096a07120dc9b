import type { AppRouteHandler } from "../http/types";
import * as queries from "./queries";
import type * as routes from "./routes";
import { createSubscription, toWebhook, webhookNotFound } from "./subscriptions";

export const createWebhook: AppRouteHandler<typeof routes.createWebhook> = async (c) => {
  const created = await createSubscription(c.var.db, c.env, c.req.valid("json"));
  c.header("Location", `${new URL(c.req.url).pathname}/${created.webhookId}`);
  return c.json(created, 201);
};

export const listWebhooks: AppRouteHandler<typeof routes.listWebhooks> = async (c) => {
  const rows = await queries.listSubscriptions(c.var.db);
  return c.json(rows.map(toWebhook), 200);
};

export const getWebhook: AppRouteHandler<typeof routes.getWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const row = await queries.findSubscription(c.var.db, webhookId);
  if (!row) throw webhookNotFound(webhookId);
  return c.json(toWebhook(row), 200);
};

export const deleteWebhook: AppRouteHandler<typeof routes.deleteWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  if (!(await queries.deleteSubscription(c.var.db, webhookId))) throw webhookNotFound(webhookId);
  return c.body(null, 204);
};

export const listWebhookDeliveries: AppRouteHandler<typeof routes.listWebhookDeliveries> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const found = await queries.findSubscriptionDeliveries(c.var.db, webhookId);
  if (!found) throw webhookNotFound(webhookId);
  return c.json(
    found.deliveries.map((d) => ({
      deliveryId: d.delivery_id,
      eventId: d.event_id,
      attempts: d.attempts,
      status: d.status,
      ...(d.response_status !== null ? { responseStatus: d.response_status } : {}),
      ...(d.last_attempt_at !== null ? { lastAttemptAt: d.last_attempt_at } : {}),
    })),
    200,
  );
};
