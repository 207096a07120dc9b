import { createRoute } from "@hono/zod-openapi";
import { requireRole } from "../middleware/require-role";
import { BASIC_AUTH, jsonRequestBody, jsonContent, problemResponses } from "../http/openapi";
import {
  ExceptionDateParamsSchema,
  GetMuseumHoursQuerySchema,
  GetMuseumHoursResponseSchema,
  HoursExceptionListSchema,
  HoursExceptionSchema,
  ListHoursExceptionsQuerySchema,
  PutHoursExceptionRequestSchema,
  WeeklyScheduleSchema,
} from "./schemas";

const adminOnly = requireRole("admin");
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
  request: { query: GetMuseumHoursQuerySchema },
  responses: {
    200: {
      ...jsonContent(GetMuseumHoursResponseSchema, "Success."),
      headers: { Link: { description: "RFC 8288 `next` / `prev` pages.", schema: { type: "string" } } },
    },
    ...problemResponses(400, 401, 404),
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
  middleware: [adminOnly] as const,
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
  description: "Replaces the regular opening hours of every weekday at once; `null` closes a day. Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  middleware: [adminOnly] as const,
  request: { body: jsonRequestBody(WeeklyScheduleSchema) },
  responses: {
    200: jsonContent(WeeklyScheduleSchema, "The schedule now in force."),
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
  middleware: [adminOnly] as const,
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
  description: "Closes the museum on a date, or sets special hours for it, replacing any earlier exception. Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  middleware: [adminOnly] as const,
  request: { params: ExceptionDateParamsSchema, body: jsonRequestBody(PutHoursExceptionRequestSchema) },
  responses: {
    200: jsonContent(HoursExceptionSchema, "The exception replaced an earlier one."),
    201: jsonContent(HoursExceptionSchema, "The exception was created."),
    ...problemResponses(400, 401, 403, 413, 415),
  },
});

export const deleteHoursException = createRoute({
  method: "delete",
  path: "/museum-hours/exceptions/{date}",
  operationId: "deleteHoursException",
  summary: "Remove an hours exception",
  description: "The date follows the weekly schedule again. Admin only.",
  tags: adminTags,
  security: BASIC_AUTH,
  middleware: [adminOnly] as const,
  request: { params: ExceptionDateParamsSchema },
  responses: {
    204: { description: "Removed." },
    ...problemResponses(400, 401, 403, 404),
  },
});
