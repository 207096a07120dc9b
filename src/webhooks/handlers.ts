import type { AppRouteHandler } from "../http/types";
import type * as routes from "./routes";
import * as subscriptions from "./subscriptions";

export const createWebhook: AppRouteHandler<typeof routes.createWebhook> = async (c) => {
  const created = await subscriptions.createSubscription(c.var.db, c.var.config, c.req.valid("json"));
  c.header("Location", `${new URL(c.req.url).pathname}/${created.webhookId}`);
  return c.json(created, 201);
};

export const listWebhooks: AppRouteHandler<typeof routes.listWebhooks> = async (c) => {
  return c.json(await subscriptions.listSubscriptions(c.var.db), 200);
};

export const getWebhook: AppRouteHandler<typeof routes.getWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const webhook = await subscriptions.findSubscription(c.var.db, webhookId);
  if (!webhook) throw subscriptions.webhookNotFound(webhookId);
  return c.json(webhook, 200);
};

export const deleteWebhook: AppRouteHandler<typeof routes.deleteWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  if (!(await subscriptions.deleteSubscription(c.var.db, webhookId))) throw subscriptions.webhookNotFound(webhookId);
  return c.body(null, 204);
};

export const listWebhookDeliveries: AppRouteHandler<typeof routes.listWebhookDeliveries> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const found = await subscriptions.findSubscriptionDeliveries(c.var.db, webhookId);
  if (!found) throw subscriptions.webhookNotFound(webhookId);
  return c.json(found.deliveries, 200);
};
