import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, jsonRequestBody, problemResponses, REPLAYED_HEADER } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { AdmissionProblemSchema, AdmissionRequestSchema, AdmissionSchema, AttendanceQuerySchema, AttendanceSummarySchema, RevocationFeedSchema } from "./schemas";
import { FeedQuerySchema } from "../tickets/feed";
import { IdempotencyHeadersSchema } from "../tickets/schemas";

const gates = allowRoles("admin", "gate");
const adminOnly = allowRoles("admin");
const admissionTags = ["Admissions"];

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

export const listRevocations = createRoute({
  method: "get",
  path: "/gate/revocations",
  operationId: "listRevocations",
  summary: "The feed of revoked ticket codes, for offline gates",
  description:
    "The codes a gate must not admit (tickets cancelled, codes of a withdrawn key) revoked after the cursor `since`, for tickets of today or later (museum time zone), in the order revoked, at most 1,000 a page. Send the answer's `next` as `since` to read on; a revocation is never skipped nor repeated, replicas or not. One round trip. Roles: gate, admin.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...gates,
  request: { query: FeedQuerySchema },
  responses: {
    200: jsonContent(RevocationFeedSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});
