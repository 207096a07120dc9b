import { createRoute, z } from "@hono/zod-openapi";
import { allowRoles } from "../../middleware/require-role";
import {
  BASIC_AUTH,
  jsonContent,
  jsonRequestBody,
  ProblemSchema,
  problemResponses,
  REPLAYED_HEADER,
  TimeSchema,
} from "../../http/openapi";
import { CancellationRequestSchema, IdempotencyHeadersSchema } from "../schemas";
import { OrderCancellationSchema, OrderIdParamsSchema, OrderRequestSchema, OrderSchema, OrderStatusSchema } from "./schemas";

const tags = ["Orders"];
const staff = allowRoles("admin", "sales", "box-office");

const Line = z.number().int().openapi({ description: "The lowest refused line (0-based).", example: 2 });

export const createOrder = createRoute({
  method: "post",
  path: "/orders",
  operationId: "createOrder",
  summary: "Buy several tickets in one order",
  description:
    "1 to 50 lines, each following the rules of `POST /tickets` (including `entryTime` and the limits), sold all or nothing in one atomic write: lines for the same day, slot or event count together. A refusal names the lowest refused line in `line`: every 400 first (`errors[].path` such as `tickets[2].ticketDate`), then a 404, then a 409. Send an `Idempotency-Key` to make retries safe.",
  tags,
  security: BASIC_AUTH,
  ...staff,
  request: { headers: IdempotencyHeadersSchema, body: jsonRequestBody(OrderRequestSchema) },
  responses: {
    201: {
      ...jsonContent(OrderSchema, "Created: every ticket sold."),
      headers: { Location: { description: "The order.", schema: { type: "string" } }, ...REPLAYED_HEADER },
    },
    400: {
      description: "A line (or the body) breaks the schema or a sale rule; nothing was sold.",
      content: {
        "application/problem+json": {
          schema: ProblemSchema.extend({ line: Line.optional() }).openapi("OrderValidationProblem"),
        },
      },
    },
    404: {
      description: "A line's event does not exist (or was deleted); nothing was sold.",
      content: { "application/problem+json": { schema: ProblemSchema.extend({ line: Line }).openapi("OrderLineProblem") } },
    },
    409: {
      description:
        "`/problems/sold-out`: a line would pass a limit (with `line`, `available` and, on a timed day, `availableEntryTimes`); nothing was sold. Otherwise: a request with the same Idempotency-Key is still being processed.",
      content: {
        "application/problem+json": {
          schema: ProblemSchema.extend({
            line: Line.optional(),
            available: z.number().int().optional(),
            availableEntryTimes: z.array(TimeSchema).optional(),
          }).openapi("OrderSoldOutProblem"),
        },
      },
    },
    ...problemResponses(401, 403, 413, 415, 422),
  },
});

export const getOrder = createRoute({
  method: "get",
  path: "/orders/{orderId}",
  operationId: "getOrder",
  summary: "Get an order's status",
  description:
    "The order as sold and each ticket's status (refunds show on the tickets). Never the buyer's e-mail or phone. Admin and box-office: any order; sales: only its own (another account's order is 404, as an unknown id).",
  tags,
  security: BASIC_AUTH,
  ...staff,
  request: { params: OrderIdParamsSchema },
  responses: {
    200: jsonContent(OrderStatusSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});

export const cancelOrder = createRoute({
  method: "post",
  path: "/orders/{orderId}/cancellation",
  operationId: "cancelOrder",
  summary: "Cancel an order at the box office",
  description:
    "Cancels every ticket of the order that can still be cancelled, in one atomic write; the refund is the sum of their recorded prices. Admin and box-office: any order; sales: only its own (another account's order is 404, as an unknown id).",
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
