import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonBody, jsonContent, problemResponses } from "../lib/openapi";
import { BuyMuseumTicketsRequestSchema, BuyMuseumTicketsResponseSchema, IdempotencyHeadersSchema } from "./schemas";

const tags = ["Tickets"];

export const buyMuseumTickets = createRoute({
  method: "post",
  path: "/tickets",
  operationId: "buyMuseumTickets",
  summary: "Buy museum tickets",
  description:
    "Purchase museum tickets for general entry or special events. Send an `Idempotency-Key` to make retries safe.",
  tags,
  security: BASIC_AUTH,
  request: { headers: IdempotencyHeadersSchema, body: jsonBody(BuyMuseumTicketsRequestSchema) },
  responses: {
    201: {
      ...jsonContent(BuyMuseumTicketsResponseSchema, "Created."),
      headers: {
        Location: { description: "The ticket's image.", schema: { type: "string" } },
        "Idempotent-Replayed": {
          description: "`true` when this is the stored response of an earlier request with the same key.",
          schema: { type: "string" },
        },
      },
    },
    ...problemResponses(400, 401, 404, 409, 413, 415, 422),
  },
});
