import { z } from "@hono/zod-openapi";
import { textField, UuidSchema } from "../http/openapi";
import { MAX_URL_LENGTH } from "./url-rules";

const MAX_DESCRIPTION = 200;

const WebhookIdSchema = UuidSchema.openapi({
  description: "Identifier of a webhook subscription.",
  example: "1b0e3c4e-8d0c-4b8f-9a53-5a2f8e0f6c11",
});

const WebhookUrlSchema = z.string({ error: "Must be a string." }).openapi({
  description:
    "Where deliveries are POSTed: an absolute https URL of at most 2,048 characters, without user or password, whose host is not `localhost` and, when it is an IP address, a globally routable unicast one (an IPv6 address that carries an IPv4 one counts as that IPv4 address).",
  format: "uri",
  maxLength: MAX_URL_LENGTH,
  example: "https://partner.example/hooks/museum",
});

const DescriptionSchema = textField(MAX_DESCRIPTION, {
  description: "What the subscription is for (one line).",
  example: "Digital signage in the lobby",
});

export const CreateWebhookRequestSchema = z
  .strictObject({ url: WebhookUrlSchema, description: DescriptionSchema.optional() })
  .openapi("CreateWebhookRequest", { description: "A new publishNewEvent subscription." });
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

const webhookFields = {
  webhookId: WebhookIdSchema,
  url: WebhookUrlSchema,
  description: DescriptionSchema.optional(),
  createdAt: z.string().openapi({ format: "date-time", example: "2026-05-01T09:30:00.000Z" }),
};

export const WebhookSchema = z
  .object(webhookFields)
  .openapi("Webhook", { description: "A publishNewEvent subscription (its secret is never shown again)." });
export type Webhook = z.infer<typeof WebhookSchema>;

export const CreatedWebhookSchema = z
  .object({
    ...webhookFields,
    secret: z.string().openapi({
      description:
        "The signing secret, `whsec_` + base64 of 32 random bytes: shown only in this response. Verify each delivery's `webhook-signature` with it (Standard Webhooks).",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5u1Zz2Gkc6E=",
    }),
  })
  .openapi("CreatedWebhook", { description: "A new subscription, with its secret (shown once)." });

export const WebhookListSchema = z.array(WebhookSchema).openapi("WebhookList", { description: "Every subscription." });

const WebhookDeliverySchema = z
  .object({
    deliveryId: UuidSchema.openapi({ description: "The delivery's id, sent as its `webhook-id` header." }),
    eventId: UuidSchema.openapi({ description: "The special event the delivery carries." }),
    attempts: z.number().int().openapi({ description: "Attempts made so far.", example: 1 }),
    status: z.enum(["pending", "delivered", "retrying", "failed"]).openapi({
      description:
        "`pending`: not attempted yet; `retrying`: an attempt failed, another will follow; `delivered`: a 2xx answer; `failed`: no more attempts.",
    }),
    responseStatus: z.number().int().optional().openapi({ description: "HTTP status of the last attempt's answer (absent: none yet, or no answer).", example: 202 }),
    lastAttemptAt: z.string().optional().openapi({ format: "date-time", example: "2026-05-01T09:31:02.114Z" }),
  })
  .openapi("WebhookDelivery", { description: "One delivery of an event change to a subscription." });

export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const WebhookDeliveryListSchema = z
  .array(WebhookDeliverySchema)
  .openapi("WebhookDeliveryList", { description: "A subscription's latest deliveries, newest first (at most 30)." });

export const WebhookIdParamsSchema = z.object({
  webhookId: WebhookIdSchema.openapi({ param: { name: "webhookId", in: "path" } }),
});
