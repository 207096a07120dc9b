import { createRoute } from "@hono/zod-openapi";
import { allowRoles } from "../middleware/require-role";
import { z } from "@hono/zod-openapi";
import {
  BASIC_AUTH,
  jsonRequestBody,
  jsonContent,
  ProblemSchema,
  problemResponses,
  REPLAYED_HEADER,
  TimeSchema,
} from "../http/openapi";
import {
  AdmissionProblemSchema,
  AdmissionRequestSchema,
  AdmissionSchema,
  AttendanceQuerySchema,
  AttendanceSummarySchema,
  AvailabilityQuerySchema,
  AvailabilitySchema,
  BuyMuseumTicketsRequestSchema,
  BuyMuseumTicketsResponseSchema,
  CancellationRequestSchema,
  IdempotencyHeadersSchema,
  TicketCancellationSchema,
  TicketIdParamsSchema,
  TicketStatusSchema,
} from "./schemas";

const tags = ["Tickets"];
const staff = allowRoles("admin", "sales", "box-office");
const gates = allowRoles("admin", "gate");
const adminOnly = allowRoles("admin");
const admissionTags = ["Admissions"];

export const buyMuseumTickets = createRoute({
  method: "post",
  path: "/tickets",
  operationId: "buyMuseumTickets",
  summary: "Buy museum tickets",
  description:
    "Purchase museum tickets for general entry or special events. Send an `Idempotency-Key` to make retries safe. Limits decide here, inside the database: a purchase that would pass the day's, the entry slot's or the event date's limit is refused (409 sold-out) and sells nothing; on a day with timed entry a general ticket names its `entryTime`.",
  tags,
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

export const getTicketCode = createRoute({
  method: "get",
  path: "/tickets/{ticketId}/qr",
  operationId: "getTicketCode",
  summary: "Get ticket QR code",
  description:
    "Return an image of your ticket with scannable QR code. Used for event entry. The QR code carries a signed token naming the ticket; a cancelled ticket's image says CANCELLED. Send `If-None-Match` with the last `ETag` to get `304` while the ticket is unchanged. Admin and box-office: any ticket; sales: only tickets it sold itself (another account's ticket is 404, as an unknown id).",
  tags,
  security: BASIC_AUTH,
  ...staff,
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
    ...problemResponses(400, 401, 403, 404),
  },
});

export const getTicketStatus = createRoute({
  method: "get",
  path: "/tickets/{ticketId}",
  operationId: "getTicketStatus",
  summary: "Get a ticket's status",
  description:
    "Whether a ticket is `valid`, `admitted` (with `admittedAt`) or `cancelled` (with `cancelledAt`). Never the buyer's e-mail or phone. Admin and box-office: any ticket; sales: only tickets it sold itself (another account's ticket is 404, as an unknown id).",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...staff,
  request: { params: TicketIdParamsSchema },
  responses: {
    200: jsonContent(TicketStatusSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});

const admissionProblem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: AdmissionProblemSchema } },
});

export const admitTicket = createRoute({
  method: "post",
  path: "/admissions",
  operationId: "admitTicket",
  summary: "Admit a ticket at the gate",
  description:
    "Send the text read from a ticket's QR code. The signature is checked first; a valid ticket for today is admitted exactly once. Each refusal has its own problem `type` (docs/admission.md). With an `Idempotency-Key`, a scan sent again after a lost answer gets its own `201` again. Roles: gate, admin.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...gates,
  request: { headers: IdempotencyHeadersSchema, body: jsonRequestBody(AdmissionRequestSchema) },
  responses: {
    201: { ...jsonContent(AdmissionSchema, "Admitted now: let the visitor in."), headers: REPLAYED_HEADER },
    409: admissionProblem(
      "`/problems/already-admitted` (with `admittedAt` and `gate` of the first admission) or `/problems/ticket-cancelled`.",
    ),
    422: admissionProblem(
      "`/problems/not-valid-today` (with `ticketDate`), `/problems/too-early` (a timed ticket more than ADMISSION_EARLY_MINUTES, 15 by default, before its `entryTime`; with `entryTime`), or `/problems/invalid-ticket-code`: not a genuine code (never says which check failed).",
    ),
    ...problemResponses(400, 401, 403, 413, 415),
  },
});

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
        "`/problems/ticket-cancelled` (with `cancelledAt` and `cancellation`), `/problems/already-admitted` (with `admittedAt`) or `/problems/ticket-expired` (its day or slot is over). Nothing was changed. Otherwise: a request with the same Idempotency-Key is still being processed.",
      content: { "application/problem+json": { schema: ProblemSchema } },
    },
    ...problemResponses(400, 401, 403, 404, 413, 415, 422),
  },
});

export const getAttendanceSummary = createRoute({
  method: "get",
  path: "/admissions/summary",
  operationId: "getAttendanceSummary",
  summary: "Attendance of a day",
  description:
    "Tickets sold (cancelled ones included), admitted and cancelled for one date, for general entry and per event. Admin only.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { query: AttendanceQuerySchema },
  responses: {
    200: jsonContent(AttendanceSummarySchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});
