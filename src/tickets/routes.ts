import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonRequestBody, jsonContent, problemResponses } from "../http/openapi";
import {
  BuyMuseumTicketsRequestSchema,
  BuyMuseumTicketsResponseSchema,
  IdempotencyHeadersSchema,
  TicketIdParamsSchema,
} from "./schemas";

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
  request: { headers: IdempotencyHeadersSchema, body: jsonRequestBody(BuyMuseumTicketsRequestSchema) },
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

export const getTicketCode = createRoute({
  method: "get",
  path: "/tickets/{ticketId}/qr",
  operationId: "getTicketCode",
  summary: "Get ticket QR code",
  description:
    "Return an image of your ticket with scannable QR code. Used for event entry. The QR code carries a signed token naming the ticket; a cancelled ticket's image says CANCELLED. Send `If-None-Match` with the last `ETag` to get `304` while the ticket is unchanged.",
  tags,
  security: BASIC_AUTH,
  request: { params: TicketIdParamsSchema },
  responses: {
    200: {
      description: "Scannable event ticket in image format.",
      content: {
        "image/png": {
          schema: {
            type: "string",
            format: "binary",
            description: "Image of a ticket with a QR code used for museum or event entry.",
          },
        },
      },
      headers: {
        ETag: { description: "Changes whenever the image would.", schema: { type: "string" } },
        "Cache-Control": { description: "`private, no-cache`: keep it, revalidate with If-None-Match.", schema: { type: "string" } },
      },
    },
    304: { description: "The image has not changed since the ETag sent in If-None-Match." },
    ...problemResponses(400, 401, 404),
  },
});
