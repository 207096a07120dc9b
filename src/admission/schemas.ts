import { z } from "@hono/zod-openapi";
import { EventIdSchema } from "../events/schemas";
import { eventName } from "../events/statements";
import { DateSchema, TimeSchema, UuidSchema } from "../http/openapi";
import { FeedNextSchema } from "../tickets/feed";
import { EventIdOfTicket, EventNameOfTicket, TicketIdSchema, TicketTypeSchema, Timestamp } from "../tickets/schemas";

export const AdmissionRequestSchema = z
  .strictObject({
    code: z
      .string({ error: "Must be the text read from the ticket's QR code." })
      .min(1, { error: "Must be 1 to 512 characters." })
      .max(512, { error: "Must be 1 to 512 characters." })
      .openapi({ description: "The text read from the ticket's QR code, as scanned.", example: "eyJhbGciOiJFZERTQSIsImtpZCI6IksxIn0.eyJ0aWQiOiJiODExZjcyMy0xN2IyLTQ0ZjctODk1Mi0yNGIwM2U0M2Q4YTkiLCJ0eXAiOiJnZW5lcmFsIiwiZGF0ZSI6IjIwMjYtMTItMDEiLCJjYXQiOiJhZHVsdCJ9.6FPdUP2u4d0ckJjwDvAUNf45pS5q63BU1ZuofUi2ETcP0tDB6VGAzYmvPtAdvvx-xtXtbJyYf3gahqF8VoDtDA" }),
  })
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
    requestId: z.string().optional(),
    ticketId: TicketIdSchema.optional().openapi({ description: "The ticket (not for invalid-ticket-code)." }),
    admittedAt: Timestamp.optional().openapi({ description: "already-admitted: when it was first admitted." }),
    gate: z.string().optional().openapi({ description: "already-admitted: who admitted it." }),
    cancelledAt: Timestamp.optional().openapi({ description: "ticket-cancelled: when it was cancelled." }),
    ticketDate: DateSchema.optional().openapi({ description: "not-valid-today: the day the ticket is for." }),
    entryTime: TimeSchema.optional().openapi({ description: "too-early: the ticket's entry time." }),
    timeClose: TimeSchema.optional().openapi({ description: "too-late: today's closing time." }),
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
          entrySlots: z.array(TimeSchema).optional().openapi({ description: "Timed days: the slots' start times." }),
        }),
      )
      .openapi({ description: "Today and the next 6 days, open days only." }),
  })
  .openapi("GateConfig", { description: "What a gate needs to judge a code alone: the rules of the coming days." });
export type GateConfig = z.infer<typeof GateConfigSchema>;
