import { z } from "@hono/zod-openapi";
import { EventIdSchema } from "../events/schemas";
import { DateSchema, ProblemSchema, TimeSchema, UuidSchema } from "../http/openapi";
import { FeedNextSchema } from "../tickets/feed";
import { isIsoDate } from "../platform/dates";
import { EventIdOfTicket, EventNameOfTicket, TicketIdSchema, TicketTypeSchema, Timestamp } from "../tickets/schemas";

const CodeSchema = z
  .string({ error: "Must be the text read from the ticket's QR code." })
  .min(1, { error: "Must be 1 to 512 characters." })
  .max(512, { error: "Must be 1 to 512 characters." })
  .openapi({ description: "The text read from the ticket's QR code, as scanned.", example: "eyJhbGciOiJFZERTQSIsImtpZCI6IksxIn0.eyJ0aWQiOiJiODExZjcyMy0xN2IyLTQ0ZjctODk1Mi0yNGIwM2U0M2Q4YTkiLCJ0eXAiOiJnZW5lcmFsIiwiZGF0ZSI6IjIwMjYtMTItMDEiLCJjYXQiOiJhZHVsdCJ9.6FPdUP2u4d0ckJjwDvAUNf45pS5q63BU1ZuofUi2ETcP0tDB6VGAzYmvPtAdvvx-xtXtbJyYf3gahqF8VoDtDA" });

export const AdmissionRequestSchema = z
  .strictObject({ code: CodeSchema })
  .openapi("AdmissionRequest", { description: "A scanned ticket code." });

export const AdmissionSchema = z
  .object({
    admissionId: UuidSchema.openapi({ description: "Identifier of this admission." }),
    ticketId: TicketIdSchema,
    ticketType: TicketTypeSchema,
    ticketDate: DateSchema,
    eventId: EventIdOfTicket,
    eventName: EventNameOfTicket,
    admittedAt: Timestamp.openapi({ description: "When the ticket was admitted (RFC 3339, UTC)." }),
    gate: z.string().openapi({ description: "The admitting account's name.", example: "gate-north-1" }),
  })
  .openapi("Admission", { description: "A ticket admitted at a gate." });
export type Admission = z.infer<typeof AdmissionSchema>;

export const AdmissionProblemSchema = z
  .object({
    type: z
      .enum([
        "/problems/already-admitted",
        "/problems/ticket-cancelled",
        "/problems/not-valid-today",
        "/problems/too-early",
        "/problems/too-late",
        "/problems/invalid-ticket-code",
      ])
      .openapi({ description: "What a gate program switches on." }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    requestId: ProblemSchema.shape.requestId,
    ticketId: TicketIdSchema.optional().openapi({ description: "The ticket (not for invalid-ticket-code)." }),
    admittedAt: Timestamp.optional().openapi({ description: "already-admitted: when it was first admitted." }),
    gate: z.string().optional().openapi({ description: "already-admitted: who admitted it." }),
    cancelledAt: Timestamp.optional().openapi({ description: "ticket-cancelled: when it was cancelled." }),
    ticketDate: DateSchema.optional().openapi({ description: "not-valid-today: the day the ticket is for." }),
    entryTime: TimeSchema.optional().openapi({ description: "too-early: the ticket's entry time." }),
    timeClose: TimeSchema.optional().openapi({ description: "too-late: the day's closing time." }),
  })
  .openapi("AdmissionProblem", { description: "A refused admission (RFC 9457 problem details)." });

const AttendanceCountsShape = {
  sold: z.number().int().openapi({ description: "Tickets sold for the date, cancelled ones included." }),
  admitted: z.number().int(),
  cancelled: z.number().int(),
};
export type AttendanceCounts = { sold: number; admitted: number; cancelled: number };

const CountedShape = {
  ...AttendanceCountsShape,
  byCategory: z
    .record(z.string(), z.object(AttendanceCountsShape))
    .openapi({ description: "The same counts per ticket category (`categoryId`), for the categories sold.", example: { adult: { sold: 2, admitted: 1, cancelled: 0 } } }),
};

export const AttendanceSummarySchema = z
  .object({
    date: DateSchema,
    general: z.object(CountedShape),
    events: z.array(z.object({ eventId: EventIdSchema, name: z.string(), ...CountedShape })),
    conflicts: z.number().int().openapi({ description: "Offline scans of the day that conflict (`GET /admissions/conflicts`)." }),
  })
  .openapi("AttendanceSummary", { description: "Tickets sold, admitted and cancelled for one date." });
export type AttendanceSummary = z.infer<typeof AttendanceSummarySchema>;

export const AttendanceQuerySchema = z.object({
  date: DateSchema.optional().openapi({
    param: { name: "date", in: "query", description: "The day counted (default: today, museum time zone)." },
  }),
});

export const RevocationFeedSchema = z
  .object({
    revocations: z.array(
      z.object({
        ticketId: TicketIdSchema,
        ticketDate: DateSchema,
        revokedAt: Timestamp.openapi({ description: "When its code was revoked (the ticket cancelled, or its key withdrawn)." }),
      }),
    ).openapi({ description: "At most 1,000, in the order revoked; tickets for today or later only." }),
    next: FeedNextSchema,
  })
  .openapi("RevocationFeed", { description: "Ticket codes revoked after the cursor: an offline gate refuses them." });
export type RevocationFeed = z.infer<typeof RevocationFeedSchema>;

export const GateKeySetSchema = z
  .object({
    keys: z.array(
      z
        .object({
          kty: z.literal("OKP"),
          crv: z.literal("Ed25519"),
          x: z.string().openapi({ description: "The public key, base64url (RFC 8037).", example: "flaSZCZjIt7lggJQ090s79PwzeLp6yXyvBlwvWP6IV0" }),
          kid: z.string().openapi({ description: "The key's id: the `kid` of the codes it signs (at most 8 characters).", example: "K1" }),
          alg: z.literal("EdDSA"),
          use: z.literal("sig"),
        })
        .openapi("GateKey"),
    ),
  })
  .openapi("GateKeySet", { description: "A JWK Set (RFC 7517): every key whose codes can be admitted, the next one included once it is published." });

export const GateConfigSchema = z
  .object({
    timeZone: z.string().openapi({ description: "The museum's IANA time zone: what today and now mean at the gate.", example: "America/New_York" }),
    admissionEarlyMinutes: z.number().int().openapi({ description: "How long before its entry time a timed ticket is admitted.", example: 15 }),
    categories: z.array(z.object({ categoryId: z.string(), name: z.string() })).openapi({ description: "The active categories (a code's `cat`)." }),
    days: z
      .array(
        z.object({
          date: DateSchema,
          timeOpen: TimeSchema,
          timeClose: TimeSchema.openapi({ description: "General tickets (timed or not) are admitted until then; event tickets all day." }),
          entrySlots: z
            .array(TimeSchema)
            .optional()
            .openapi({ description: "Timed days only: the slots' start times. On a day without them a timed ticket is never too early." }),
        }),
      )
      .openapi({ description: "Today and the next 6 days, open days only." }),
  })
  .openapi("GateConfig", { description: "What a gate needs to judge a code alone: the rules of the coming days." });
export type GateConfig = z.infer<typeof GateConfigSchema>;

const DEVICE_TIME_ERROR = "Must be an RFC 3339 date-time with a time zone, such as 2026-12-01T14:03:07Z.";

/** A time by the device's clock: RFC 3339 with `Z` or an offset, a real date. */
const DeviceTimestamp = z
  .iso.datetime({ offset: true, error: DEVICE_TIME_ERROR })
  .refine((value) => isIsoDate(value.slice(0, 10)), { error: DEVICE_TIME_ERROR })
  .openapi({ format: "date-time", example: "2026-12-01T14:03:07Z" });

export const OfflineUploadSchema = z
  .strictObject({
    sentAt: DeviceTimestamp.openapi({ description: "When the device sent this upload, by its own clock: the service corrects every scan's time by the difference to its own." }),
    scans: z
      .array(
        z.strictObject({
          scanId: UuidSchema.openapi({ description: "A uuid the device made for this scan: sent again, it answers its first result." }),
          code: CodeSchema,
          scannedAt: DeviceTimestamp.openapi({ description: "When the device scanned the code, by its own clock." }),
        }),
        { error: "Must be a list of 1 to 500 scans." },
      )
      .min(1, { error: "Must be a list of 1 to 500 scans." })
      .max(500, { error: "Must be a list of 1 to 500 scans." }),
  })
  .openapi("OfflineUpload", { description: "Scans a gate made offline, in the order it made them." });
export type OfflineUpload = z.infer<typeof OfflineUploadSchema>;

/** A scan's outcome that is a conflict: the device let the visitor in, the service did not admit. */
const CONFLICT_OUTCOMES = [
  "already-admitted",
  "ticket-cancelled",
  "cancelled-after-entry",
  "not-valid-today",
  "too-early",
  "too-late",
  "invalid-ticket-code",
] as const;
const OFFLINE_OUTCOMES = ["admitted", ...CONFLICT_OUTCOMES, "rejected"] as const;

const OfflineScanShape = {
  scanId: UuidSchema,
  ticketId: TicketIdSchema.optional().openapi({ description: "The ticket a genuine code names." }),
  scannedAt: Timestamp.openapi({ description: "When it was scanned, corrected by the upload's `sentAt` (RFC 3339, UTC)." }),
  deviceScannedAt: Timestamp.openapi({ description: "When it was scanned by the device's own clock." }),
};

export const OfflineResultsSchema = z
  .object({
    results: z.array(
      z.object({
        ...OfflineScanShape,
        outcome: z.enum(OFFLINE_OUTCOMES).openapi({ description: "`admitted`, a conflict (every other outcome but `rejected`), or `rejected`: too old or too far ahead to be judged." }),
        admittedAt: Timestamp.optional().openapi({ description: "admitted, already-admitted: the ticket's admission." }),
      }),
    ),
  })
  .openapi("OfflineResults", { description: "Each scan's outcome, in the order of the upload's scans." });
export type OfflineResult = z.infer<typeof OfflineResultsSchema>["results"][number];

export const ConflictsSchema = z
  .array(
    z.object({
      ...OfflineScanShape,
      gate: z.string().openapi({ description: "The account that uploaded the scan.", example: "gate-north-1" }),
      outcome: z.enum(CONFLICT_OUTCOMES),
      admittedAt: Timestamp.optional().openapi({ description: "The ticket's admission, where it has one." }),
    }),
  )
  .openapi("AdmissionConflicts", { description: "Offline scans that were let in but not admitted, in the order they were uploaded." });
export type Conflict = z.infer<typeof ConflictsSchema>[number];
