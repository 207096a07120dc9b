import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, jsonRequestBody, ProblemSchema, problemResponses, REPLAYED_HEADER } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { FeedQuerySchema } from "../tickets/feed";
import {
  AdmissionProblemSchema,
  AdmissionRequestSchema,
  AdmissionSchema,
  AttendanceQuerySchema,
  AttendanceSummarySchema,
  ConflictsSchema,
  OfflineResultsSchema,
  OfflineUploadSchema,
  GateConfigSchema,
  GateKeySetSchema,
  RevocationFeedSchema,
} from "./schemas";
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
    "Send the text read from a ticket's QR code: a compact JWS signed with Ed25519 (keys: `GET /gate/keys`), or, for a ticket sold before those came in, the code printed then (HMAC, `MT1.…`; a ticket sold since is admitted by its Ed25519 code alone). The signature is checked first; a valid ticket for today is admitted exactly once. Each refusal has its own problem `type` (docs/admission.md). With an `Idempotency-Key`, a scan sent again after a lost answer gets its own `201` again. Roles: gate, admin.",
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
      "`/problems/not-valid-today` (with `ticketDate`), `/problems/too-late` (a general ticket from its day's closing time on; with `timeClose`), `/problems/too-early` (a timed ticket more than ADMISSION_EARLY_MINUTES, 15 by default, before its `entryTime`, on a day with timed entry; with `entryTime`), or `/problems/invalid-ticket-code`: not a genuine code (never says which check failed).",
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
    "Tickets sold (cancelled ones included), admitted and cancelled for one date, for general entry and per event, and the number of that date's offline conflicts (`GET /admissions/conflicts`). Admin only.",
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
    "The tickets a gate must not admit (cancelled ones; a withdrawn key is withdrawn from `GET /gate/keys`) revoked after the cursor `since`, for tickets of today or later (museum time zone), in the order revoked, at most 1,000 a page. Send the answer's `next` as `since` to read on; a revocation is never skipped nor repeated, replicas or not. One round trip. Roles: gate, admin.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...gates,
  request: { query: FeedQuerySchema },
  responses: {
    200: jsonContent(RevocationFeedSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});

export const getGateKeys = createRoute({
  method: "get",
  path: "/gate/keys",
  operationId: "getGateKeys",
  summary: "The keys ticket codes are signed with",
  description:
    "A JWK Set: the Ed25519 public keys (RFC 8037) that verify ticket codes, for a gate that checks codes offline. A new key is listed at least 48 hours before it signs; a withdrawn key is gone at once (docs/admission.md). Roles: gate, admin.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...gates,
  responses: {
    200: jsonContent(GateKeySetSchema, "The key set."),
    ...problemResponses(401, 403),
  },
});

export const getGateConfig = createRoute({
  method: "get",
  path: "/gate/config",
  operationId: "getGateConfig",
  summary: "The rules a gate judges codes by",
  description:
    "The time zone, the early-entry window, the category names and the open days (hours, entry slots) of today and the next 6 days: what a gate needs to tell not today, too early and too late as the service does. Roles: gate, admin.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...gates,
  responses: {
    200: jsonContent(GateConfigSchema, "The gate's configuration."),
    ...problemResponses(401, 403),
  },
});

export const uploadOfflineScans = createRoute({
  method: "post",
  path: "/admissions/offline",
  operationId: "uploadOfflineScans",
  summary: "Upload scans a gate made offline",
  description:
    "A gate that admitted visitors without a network sends its scans when it is back: each scan's time is corrected by the difference between the service's clock and `sentAt`, then judged as `POST /admissions` judges a code at that time. The first scan of a ticket to reach the service, online or uploaded (within one upload: the earliest by corrected time), is its admission, or `cancelled-after-entry` when the ticket was cancelled after it; its later scans are `already-admitted`. Every outcome but `admitted` and `rejected` (more than 7 days old or more than 5 minutes ahead) is a conflict, recorded and listed by `GET /admissions/conflicts`. A `scanId` sent again with the same code answers its first result; with another code the whole upload is `422 /problems/scan-id-reused` and nothing of it is recorded. Roles: gate, admin.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...gates,
  request: { body: jsonRequestBody(OfflineUploadSchema) },
  responses: {
    200: jsonContent(OfflineResultsSchema, "Each scan's outcome, in the order of the scans."),
    422: {
      description: "`/problems/scan-id-reused`: `errors` names each `scans[i].scanId` sent before with another code. Nothing was recorded.",
      content: { "application/problem+json": { schema: ProblemSchema } },
    },
    ...problemResponses(400, 401, 403, 413, 415),
  },
});

export const listAdmissionConflicts = createRoute({
  method: "get",
  path: "/admissions/conflicts",
  operationId: "listAdmissionConflicts",
  summary: "Offline scans that conflict, of a day",
  description:
    "The offline scans of tickets for one date, and those made that day whose code named no ticket, that a gate let in but the service did not admit (docs/admission.md, what to do with them), in the order they were uploaded. Admin only.",
  tags: admissionTags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { query: AttendanceQuerySchema },
  responses: {
    200: jsonContent(ConflictsSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});
