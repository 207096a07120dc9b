import { createRoute } from "@hono/zod-openapi";
import { allowRoles } from "../middleware/require-role";
import { BASIC_AUTH, CancelTicketsQuerySchema, jsonRequestBody, changeConflictResponse, jsonContent, problemResponses } from "../http/openapi";
import { CreateSpecialEventRequestSchema, EventIdParamsSchema, ListSpecialEventsQuerySchema, ListSpecialEventsResponseSchema, SpecialEventResponseSchema, UpdateSpecialEventRequestSchema } from "./schemas";

const tags = ["Events"];
const adminOnly = allowRoles("admin");
const staff = allowRoles("admin", "sales", "box-office");

export const createSpecialEvent = createRoute({
  method: "post",
  path: "/special-events",
  operationId: "createSpecialEvent",
  summary: "Create special events",
  description: "Creates a new special event for the museum. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { body: jsonRequestBody(CreateSpecialEventRequestSchema) },
  responses: {
    201: {
      ...jsonContent(SpecialEventResponseSchema, "Created."),
      headers: { Location: { description: "URL of the new event.", schema: { type: "string" } } },
    },
    ...problemResponses(400, 401, 403, 404, 413, 415),
  },
});

export const listSpecialEvents = createRoute({
  method: "get",
  path: "/special-events",
  operationId: "listSpecialEvents",
  summary: "List special events",
  description:
    "Return a list of upcoming special events at the museum: every event with a date in [startDate, endDate], ordered by its first date in that window, then name, then id.",
  tags,
  security: BASIC_AUTH,
  ...staff,
  request: { query: ListSpecialEventsQuerySchema },
  responses: {
    200: {
      ...jsonContent(ListSpecialEventsResponseSchema, "Success."),
      headers: { Link: { description: "RFC 8288 `next` / `prev` pages.", schema: { type: "string" } } },
    },
    ...problemResponses(400, 401, 403, 404),
  },
});

export const getSpecialEvent = createRoute({
  method: "get",
  path: "/special-events/{eventId}",
  operationId: "getSpecialEvent",
  summary: "Get special event",
  description: "Get details about a special event.",
  tags,
  security: BASIC_AUTH,
  ...staff,
  request: { params: EventIdParamsSchema },
  responses: {
    200: jsonContent(SpecialEventResponseSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});

export const updateSpecialEvent = createRoute({
  method: "patch",
  path: "/special-events/{eventId}",
  operationId: "updateSpecialEvent",
  summary: "Update special event",
  description:
    "Update the details of a special event; fields not sent are left as they were. New `dates` that drop a date with valid tickets are refused (409, `affectedTickets`, `dates`) unless `cancelTickets=true` cancels those tickets in the same write. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: {
    params: EventIdParamsSchema,
    query: CancelTicketsQuerySchema,
    body: jsonRequestBody(UpdateSpecialEventRequestSchema),
  },
  responses: {
    200: jsonContent(SpecialEventResponseSchema, "Success."),
    409: changeConflictResponse,
    ...problemResponses(400, 401, 403, 404, 413, 415),
  },
});

export const deleteSpecialEvent = createRoute({
  method: "delete",
  path: "/special-events/{eventId}",
  operationId: "deleteSpecialEvent",
  summary: "Delete special event",
  description:
    "Delete a special event from the collection. Allows museum to cancel planned events: tickets already sold are kept and marked cancelled. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { params: EventIdParamsSchema },
  responses: {
    204: { description: "Success - no content." },
    ...problemResponses(400, 401, 403, 404),
  },
});
