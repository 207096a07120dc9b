import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, jsonRequestBody, problemResponses, ProblemSchema, REPLAYED_HEADER } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { CancellationFeedSchema, OrderCancellationSchema } from "./schemas";
import { FeedQuerySchema } from "../tickets/feed";
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
        "`/problems/ticket-cancelled` (with `cancelledAt` and `cancellation`), `/problems/already-admitted` (with `admittedAt`), `/problems/ticket-expired` (its day or slot is over), `/problems/ticket-held` (held for an order being paid for: release the order) or `/problems/accompaniment-required` (it is the last companion of an accompanied ticket of its order: cancel that one first, or the whole order). Nothing was changed. Otherwise: a request with the same Idempotency-Key is still being processed.",
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
    "Cancels every ticket of the order that can still be cancelled, in one atomic write (accompanied tickets and their companions together); the refund is the sum of their recorded prices. A held order is released: `status: released`, refund 0, its places free at once. Admin and box-office: any order; sales: only its own (another account's order is 404, as an unknown id).",
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

export const listCancellations = createRoute({
  method: "get",
  path: "/cancellations",
  operationId: "listCancellations",
  summary: "The feed of ticket cancellations",
  description:
    "Every ticket cancellation written after the cursor `since`, in the order written, at most 1,000 a page, whatever caused it (the box office, a closure or a removed date with `cancelTickets`, a deleted event): what a shop refunds. Send the answer's `next` as `since` to read on; a cancellation is never skipped nor repeated, replicas or not. One round trip. Admin and box-office: every ticket; sales: only tickets it sold itself.",
  tags: ["Cancellation"],
  security: BASIC_AUTH,
  ...staff,
  request: { query: FeedQuerySchema },
  responses: {
    200: jsonContent(CancellationFeedSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});
