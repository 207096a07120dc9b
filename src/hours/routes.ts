import { createRoute } from "@hono/zod-openapi";
import { allowRoles } from "../middleware/require-role";
import { BASIC_AUTH, CancelTicketsQuerySchema, jsonRequestBody, changeConflictResponse, jsonContent, problemResponses } from "../http/openapi";
import { ExceptionDateParamsSchema, GetMuseumHoursQuerySchema, GetMuseumHoursResponseSchema, HoursExceptionListSchema, HoursExceptionSchema, ListHoursExceptionsQuerySchema, PutHoursExceptionRequestSchema, WeeklyScheduleSchema } from "./schemas";

const adminOnly = allowRoles("admin");
const staff = allowRoles("admin", "sales", "box-office");
const adminTags = ["Hours administration"];

export const getMuseumHours = createRoute({
  method: "get",
  path: "/museum-hours",
  operationId: "getMuseumHours",
  summary: "Get museum hours",
  description:
    "Get upcoming museum operating hours: one entry per open day, ascending from `startDate`; closed days are left out and pages count open days. Hours are published up to 365 days ahead.",
  tags: ["Operations"],
  security: BASIC_AUTH,
  ...staff,
  request: { query: GetMuseumHoursQuerySchema },
  responses: {
    200: {
      ...jsonContent(GetMuseumHoursResponseSchema, "Success."),
      headers: { Link: { description: "RFC 8288 `next` / `prev` pages.", schema: { type: "string" } } },
    },
    ...problemResponses(400, 401, 403, 404),
  },
});

export const getWeeklySchedule = createRoute({
  method: "get",
  path: "/museum-hours/schedule",
  operationId: "getWeeklySchedule",
  summary: "Get the weekly schedule",
  description: "The regular opening hours of each weekday. Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  ...adminOnly,
  responses: {
    200: jsonContent(WeeklyScheduleSchema, "Success."),
    ...problemResponses(401, 403),
  },
});

export const replaceWeeklySchedule = createRoute({
  method: "put",
  path: "/museum-hours/schedule",
  operationId: "replaceWeeklySchedule",
  summary: "Replace the weekly schedule",
  description:
    "Replaces the regular opening hours and limits of every weekday at once; `null` closes a day. A schedule that closes a weekday, moves its hours or entry slots, or moves its closing to or before a ticket's entry time (timed entry on or off), under valid general tickets (today or later, dates without an exception) is refused (409 tickets-affected) unless `cancelTickets=true` cancels them in the same write; a `capacity` or `slotCapacity` below the places already taken is refused (409 capacity-below-sold). Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { query: CancelTicketsQuerySchema, body: jsonRequestBody(WeeklyScheduleSchema) },
  responses: {
    200: jsonContent(WeeklyScheduleSchema, "The schedule now in force."),
    409: changeConflictResponse,
    ...problemResponses(400, 401, 403, 413, 415),
  },
});

export const listHoursExceptions = createRoute({
  method: "get",
  path: "/museum-hours/exceptions",
  operationId: "listHoursExceptions",
  summary: "List hours exceptions",
  description: "Closures and special hours between two dates. Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { query: ListHoursExceptionsQuerySchema },
  responses: {
    200: jsonContent(HoursExceptionListSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});

export const putHoursException = createRoute({
  method: "put",
  path: "/museum-hours/exceptions/{date}",
  operationId: "putHoursException",
  summary: "Set an hours exception",
  description:
    "Closes the museum on a date, or sets special hours (and their own limits: an exception without `capacity` has no daily limit) for it, replacing any earlier exception. Closing a day, moving its hours or entry slots, or moving its closing to or before a ticket's entry time (timed entry on or off), under valid general tickets is refused (409 tickets-affected) unless `cancelTickets=true` cancels them in the same write; a limit below the places already taken is refused (409 capacity-below-sold). Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: {
    params: ExceptionDateParamsSchema,
    query: CancelTicketsQuerySchema,
    body: jsonRequestBody(PutHoursExceptionRequestSchema),
  },
  responses: {
    200: jsonContent(HoursExceptionSchema, "The exception replaced an earlier one."),
    201: jsonContent(HoursExceptionSchema, "The exception was created."),
    409: changeConflictResponse,
    ...problemResponses(400, 401, 403, 413, 415),
  },
});

export const deleteHoursException = createRoute({
  method: "delete",
  path: "/museum-hours/exceptions/{date}",
  operationId: "deleteHoursException",
  summary: "Remove an hours exception",
  description:
    "The date follows the weekly schedule again. When that closes the day, moves its entry slots, or closes it at or before a ticket's entry time under valid general tickets, or sets a limit below the places taken, it is refused (409); change the exception with `cancelTickets=true` first. Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { params: ExceptionDateParamsSchema },
  responses: {
    204: { description: "Removed." },
    409: changeConflictResponse,
    ...problemResponses(400, 401, 403, 404),
  },
});
