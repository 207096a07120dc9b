import { createRoute, z } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, jsonRequestBody, problemResponses, problemResponseWith, ProblemSchema, REPLAYED_HEADER, TimeSchema, UuidSchema } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { AvailabilityQuerySchema, AvailabilitySchema, CalendarQuerySchema, CalendarSchema, BuyMuseumTicketsRequestSchema, BuyMuseumTicketsResponseSchema } from "./schemas";
import { IdempotencyHeadersSchema } from "../tickets/schemas";
import {
  HOLD_LIMIT_MINUTES,
  HoldRequestSchema,
  OrderConfirmationRequestSchema,
  OrderConfirmationSchema,
  OrderIdParamsSchema,
  OrderReferenceQuerySchema,
  OrderRequestSchema,
  OrderSchema,
  OrderStatusListSchema,
  OrderStatusSchema,
} from "./schemas";

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
    "Purchase museum tickets for general entry or special events. Send an `Idempotency-Key` to make retries safe. Limits decide here, inside the database: a purchase that would pass the day's, the entry slot's or the event date's limit is refused (409 sold-out) and sells nothing; on a day with timed entry a general ticket names its `entryTime`. An optional `category` sets the price (left out: the default category); an `accompanied` category cannot be bought alone (400).",
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
    ...problemResponseWith(
      400,
      "A ticket of an `accompanied` category bought alone: `/problems/accompaniment-required` (buy it in an order with a companion's ticket); nothing was sold.",
    ),
    ...problemResponses(401, 403, 404, 413, 415, 422),
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

export const getAvailabilityCalendar = createRoute({
  method: "get",
  path: "/availability/calendar",
  operationId: "getAvailabilityCalendar",
  summary: "What is left to sell on each day of a range",
  description:
    "For a web shop's month view: every day from `startDate` to `endDate` (at most 62 days), each with general admission's and each active event's `capacity` and `available` exactly as `GET /availability` answers for that date, and a status per product and per day (`closed`, `sold-out`, `limited`, `available`). Read in one round trip whatever the range, possibly from a replica a moment behind: the purchase decides.",
  tags: ["Availability"],
  security: BASIC_AUTH,
  ...staff,
  request: { query: CalendarQuerySchema },
  responses: {
    200: jsonContent(CalendarSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});

export const createOrder = createRoute({
  method: "post",
  path: "/orders",
  operationId: "createOrder",
  summary: "Buy several tickets in one order",
  description:
    "1 to 50 lines, each following the rules of `POST /tickets` (including `entryTime` and the limits), sold all or nothing in one atomic write: lines for the same day, slot or event count together. An optional `reference` (the shop's own order number) is unique per account: `GET /orders?reference=` finds the order by it. A refusal names the lowest refused line in `line`: every 400 first (`errors[].path` such as `tickets[2].ticketDate`), then a 404, then a 409. Send an `Idempotency-Key` to make retries safe.",
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
        "Malformed JSON (`/problems/malformed-json`); a line (or the body) breaks the schema or a sale rule (`/problems/validation-error`: every field, under `tickets[i].`; also an unknown body field or query parameter, or a query parameter given twice), or a line of an `accompanied` category has no companion line for the same date, event (or general entry) and entry time (`/problems/accompaniment-required`, with its `line`); nothing was sold.",
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
        "`/problems/sold-out`: a line would pass a limit (with `line`, `available` and, on a timed day, `availableEntryTimes`); nothing was sold. `/problems/duplicate-reference`: this account has an order with this `reference` already (`orderId`: that order); nothing was sold. Otherwise: a request with the same Idempotency-Key is still being processed.",
      content: {
        "application/problem+json": {
          schema: ProblemSchema.extend({
            orderId: UuidSchema.optional().openapi({ description: "duplicate-reference: the order that has the reference." }),
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

export const findOrdersByReference = createRoute({
  method: "get",
  path: "/orders",
  operationId: "findOrdersByReference",
  summary: "Find orders by the seller's reference",
  description:
    "The orders sent with this `reference`, newest first, each as `GET /orders/{orderId}` answers it; `[]` when none. Admin and box-office: every account's orders; sales: only its own (so at most one).",
  tags: orderTags,
  security: BASIC_AUTH,
  ...staff,
  request: { query: OrderReferenceQuerySchema },
  responses: {
    200: jsonContent(OrderStatusListSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});

const HoldExpiredProblem = ProblemSchema.extend({
  available: z.number().int().optional().openapi({ description: "A late confirmation: what is left where its places fell short." }),
  availableEntryTimes: z.array(TimeSchema).optional(),
  line: Line.optional(),
}).openapi("HoldExpiredProblem");

export const confirmOrder = createRoute({
  method: "post",
  path: "/orders/{orderId}/confirmation",
  operationId: "confirmOrder",
  summary: "Confirm a held order",
  description:
    "Sells a held order once the buyer has paid: every ticket `valid`, at the prices recorded when it was held, in one atomic write decided by the database's clock. Send no body, `{}`, or the buyer's `email` (and `phone`) when the hold was made without them. Confirming a confirmed order answers it again and changes nothing. After `expiresAt`, while every place it held is still free, it is sold all the same (`lateConfirmation: true`). The account that held it, admin or box-office (another sales account: 404). Send an `Idempotency-Key` to make retries safe.",
  tags: orderTags,
  security: BASIC_AUTH,
  ...staff,
  request: {
    params: OrderIdParamsSchema,
    headers: IdempotencyHeadersSchema,
    body: { required: false, content: { "application/json": { schema: OrderConfirmationRequestSchema } } },
  },
  responses: {
    200: { ...jsonContent(OrderConfirmationSchema, "Confirmed (now, or before)."), headers: REPLAYED_HEADER },
    409: {
      description:
        "`/problems/hold-expired`: the hold ran out and its places are no longer all free (`available` as in a sold-out answer); `/problems/order-released`: the order was released. Nothing was sold. Otherwise: a request with the same Idempotency-Key is still being processed.",
      content: { "application/problem+json": { schema: HoldExpiredProblem } },
    },
    ...problemResponses(400, 401, 403, 404, 413, 415, 422),
  },
});

export const extendHold = createRoute({
  method: "post",
  path: "/orders/{orderId}/hold",
  operationId: "extendHold",
  summary: "Extend a held order's hold",
  description:
    `Keeps a live hold's places longer while the buyer is still paying: \`expiresAt\` becomes now + \`holdMinutes\` (the database's clock), never later than the moment the first of its tickets stops being sold nor more than ${HOLD_LIMIT_MINUTES} minutes after the order was made (asking for more gets less: \`expiresAt\` says how long). The account that held it, admin or box-office (another sales account: 404).`,
  tags: orderTags,
  security: BASIC_AUTH,
  ...staff,
  request: { params: OrderIdParamsSchema, body: jsonRequestBody(HoldRequestSchema) },
  responses: {
    200: jsonContent(OrderStatusSchema, "Extended."),
    409: {
      description:
        "`/problems/hold-expired`: the hold ran out (confirm it, or order again); `/problems/order-confirmed`: the order is sold; `/problems/order-released`: it was released. Nothing was changed.",
      content: { "application/problem+json": { schema: ProblemSchema } },
    },
    ...problemResponses(400, 401, 403, 404, 413, 415),
  },
});
