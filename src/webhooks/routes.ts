import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, jsonRequestBody, problemResponses } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { CreatedWebhookSchema, CreateWebhookRequestSchema, WebhookDeliveryListSchema, WebhookIdParamsSchema, WebhookListSchema, WebhookSchema } from "./schemas";

const WEBHOOKS_TAG = "Webhooks";
const tags = [WEBHOOKS_TAG];
const adminOnly = allowRoles("admin");

export const createWebhook = createRoute({
  method: "post",
  path: "/webhooks",
  operationId: "createWebhook",
  summary: "Subscribe to publishNewEvent",
  description:
    "Registers a URL that receives every created or updated special event (the `publishNewEvent` webhook). The response carries the signing secret, shown only here. At most 20 subscriptions. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { body: jsonRequestBody(CreateWebhookRequestSchema) },
  responses: {
    201: {
      ...jsonContent(CreatedWebhookSchema, "Created."),
      headers: { Location: { description: "URL of the new subscription.", schema: { type: "string" } } },
    },
    ...problemResponses(400, 401, 403, 409, 413, 415),
  },
});

export const listWebhooks = createRoute({
  method: "get",
  path: "/webhooks",
  operationId: "listWebhooks",
  summary: "List webhook subscriptions",
  description: "Every publishNewEvent subscription, oldest first, without secrets. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  responses: {
    200: jsonContent(WebhookListSchema, "Success."),
    ...problemResponses(401, 403),
  },
});

export const getWebhook = createRoute({
  method: "get",
  path: "/webhooks/{webhookId}",
  operationId: "getWebhook",
  summary: "Get webhook subscription",
  description: "One publishNewEvent subscription, without its secret. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { params: WebhookIdParamsSchema },
  responses: {
    200: jsonContent(WebhookSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});

export const deleteWebhook = createRoute({
  method: "delete",
  path: "/webhooks/{webhookId}",
  operationId: "deleteWebhook",
  summary: "Delete webhook subscription",
  description: "Ends a subscription: nothing more is delivered to it, not even retries already queued. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { params: WebhookIdParamsSchema },
  responses: {
    204: { description: "Deleted." },
    ...problemResponses(400, 401, 403, 404),
  },
});

export const listWebhookDeliveries = createRoute({
  method: "get",
  path: "/webhooks/{webhookId}/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "List a subscription's deliveries",
  description: "The subscription's 30 latest deliveries, newest first: attempts, status and last answer. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { params: WebhookIdParamsSchema },
  responses: {
    200: jsonContent(WebhookDeliveryListSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});
