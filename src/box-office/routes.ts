import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, jsonRequestBody, problemResponses, ProblemSchema, REPLAYED_HEADER } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { OrderCancellationSchema } from "./schemas";
import { OrderIdParamsSchema } from "../sales/schemas";
import { CancellationRequestSchema, TicketCancellationSchema } from "./schemas";
import { IdempotencyHeadersSchema, TicketIdParamsSchema } from "../tickets/schemas";

const staff = allowRoles("admin", "sales", "box-office");

export const cancelTicket = createRoute({
  method: "post",
  path: "/tickets/{ticketId}/cancellation",
  operationId: "cancelTicket",
  summary: "Cancel a ticket at the box office",
  description:
    "Gives a ticket back while it could still be sold: its place is free at once, its image says CANCELLED and a gate refuses it. The refund is the price recorded at the sale. Admin and box-office: any ticket; sales: only tickets it sold itself (another account's ticket is 404, as an unknown id).",
  tags: ["Cancellation"],
  security: BASIC_AUTH,
  ...staff,
  request: { params: TicketIdParamsSchema, headers: IdempotencyHeadersSchema, body: jsonRequestBody(CancellationRequestSchema) },
  responses: {
    200: { ...jsonContent(TicketCancellationSchema, "Cancelled now."), headers: REPLAYED_HEADER },
    409: {
      description:
        "`/problems/ticket-cancelled` (with `cancelledAt` and `cancellation`), `/problems/already-admitted` (with `admittedAt`) or `/problems/ticket-expired` (its day or slot is over), or `/problems/accompaniment-required` (it is the last companion of an accompanied ticket of its order: cancel that one first, or the whole order). Nothing was changed. Otherwise: a request with the same Idempotency-Key is still being processed.",
      content: { "application/problem+json": { schema: ProblemSchema } },
    },
    ...problemResponses(400, 401, 403, 404, 413, 415, 422),
  },
});

export const cancelOrder = createRoute({
  method: "post",
  path: "/orders/{orderId}/cancellation",
  operationId: "cancelOrder",
  summary: "Cancel an order at the box office",
  description:
    "Cancels every ticket of the order that can still be cancelled, in one atomic write (accompanied tickets and their companions together); the refund is the sum of their recorded prices. Admin and box-office: any order; sales: only its own (another account's order is 404, as an unknown id).",
  tags: ["Cancellation"],
  security: BASIC_AUTH,
  ...staff,
  request: { params: OrderIdParamsSchema, headers: IdempotencyHeadersSchema, body: jsonRequestBody(CancellationRequestSchema) },
  responses: {
    200: { ...jsonContent(OrderCancellationSchema, "Cancelled now."), headers: REPLAYED_HEADER },
    409: {
      description:
        "`/problems/nothing-to-cancel`: every ticket is cancelled, admitted or past; nothing was changed. Otherwise: a request with the same Idempotency-Key is still being processed.",
      content: { "application/problem+json": { schema: ProblemSchema } },
    },
    ...problemResponses(400, 401, 403, 404, 413, 415, 422),
  },
});
