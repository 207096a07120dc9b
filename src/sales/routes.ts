import { createRoute, z } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, jsonRequestBody, problemResponses, ProblemSchema, REPLAYED_HEADER, TimeSchema } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { AvailabilityQuerySchema, AvailabilitySchema, BuyMuseumTicketsRequestSchema, BuyMuseumTicketsResponseSchema } from "./schemas";
import { IdempotencyHeadersSchema } from "../tickets/schemas";
import { OrderIdParamsSchema, OrderRequestSchema, OrderSchema, OrderStatusSchema } from "./schemas";

const ticketTags = ["Tickets"];
const orderTags = ["Orders"];
const staff = allowRoles("admin", "sales", "box-office");

const Line = z.number().int().openapi({ description: "The lowest refused line (0-based).", example: 2 });

export const buyMuseumTickets = createRoute({
  method: "post",
  path: "/tickets",
  operationId: "buyMuseumTickets",
  summary: "Buy museum tickets",
  description:
    "Purchase museum tickets for general entry or special events. Send an `Idempotency-Key` to make retries safe. Limits decide here, inside the database: a purchase that would pass the day's, the entry slot's or the event date's limit is refused (409 sold-out) and sells nothing; on a day with timed entry a general ticket names its `entryTime`. An optional `category` sets the price (left out: the default category); an `accompanied` category cannot be bought alone (400 `/problems/accompaniment-required`: buy it in an order with a companion's ticket).",
  tags: ticketTags,
  security: BASIC_AUTH,
  ...staff,
  request: { headers: IdempotencyHeadersSchema, body: jsonRequestBody(BuyMuseumTicketsRequestSchema) },
  responses: {
    201: {
      ...jsonContent(BuyMuseumTicketsResponseSchema, "Created."),
      headers: {
        Location: { description: "The ticket's image.", schema: { type: "string" } },
        ...REPLAYED_HEADER,
      },
    },
    409: {
      description:
        "`/problems/sold-out`: a limit would be passed; `available` is what is left where it fell short and, on a timed day, `availableEntryTimes` lists up to five slots with room, nearest first. Nothing was sold. Otherwise: a request with the same Idempotency-Key is still being processed.",
      content: {
        "application/problem+json": {
          schema: ProblemSchema.extend({
            available: z.number().int().optional().openapi({ example: 0 }),
            availableEntryTimes: z.array(TimeSchema).optional(),
          }).openapi("SoldOutProblem"),
        },
      },
    },
    ...problemResponses(400, 401, 403, 404, 413, 415, 422),
  },
});

export const getAvailability = createRoute({
  method: "get",
  path: "/availability",
  operationId: "getAvailability",
  summary: "What is left to sell on a day",
  description:
    "General places of a day (per entry slot on a timed day) and each active event's that day. Read in one round trip, possibly from a replica a moment behind: advice for kiosks and the box office; the purchase decides.",
  tags: ["Availability"],
  security: BASIC_AUTH,
  ...staff,
  request: { query: AvailabilityQuerySchema },
  responses: {
    200: jsonContent(AvailabilitySchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});

export const createOrder = createRoute({
  method: "post",
  path: "/orders",
  operationId: "createOrder",
  summary: "Buy several tickets in one order",
  description:
    "1 to 50 lines, each following the rules of `POST /tickets` (including `entryTime` and the limits), sold all or nothing in one atomic write: lines for the same day, slot or event count together. A refusal names the lowest refused line in `line`: every 400 first (`errors[].path` such as `tickets[2].ticketDate`), then a 404, then a 409. Send an `Idempotency-Key` to make retries safe.",
  tags: orderTags,
  security: BASIC_AUTH,
  ...staff,
  request: { headers: IdempotencyHeadersSchema, body: jsonRequestBody(OrderRequestSchema) },
  responses: {
    201: {
      ...jsonContent(OrderSchema, "Created: every ticket sold."),
      headers: { Location: { description: "The order.", schema: { type: "string" } }, ...REPLAYED_HEADER },
    },
    400: {
      description:
        "A line (or the body) breaks the schema or a sale rule (`/problems/validation-error`: every field, under `tickets[i].`), or a line of an `accompanied` category has no companion line for the same date, event (or general entry) and entry time (`/problems/accompaniment-required`, with its `line`); nothing was sold.",
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
  tags: orderTags,
  security: BASIC_AUTH,
  ...staff,
  request: { params: OrderIdParamsSchema },
  responses: {
    200: jsonContent(OrderStatusSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});
