import { z } from "@hono/zod-openapi";
import { EventIdSchema } from "../events/schemas";
import { DateSchema, textField, TimeSchema, UuidSchema } from "../http/openapi";

const TicketTypeSchema = z
  .enum(["event", "general"], { error: "Must be 'general' or 'event'." })
  .openapi("TicketType", {
    description:
      "Type of ticket being purchased. Use `general` for regular museum entry and `event` for tickets to special events.",
    example: "event",
  });
export type TicketType = z.infer<typeof TicketTypeSchema>;

const EMAIL_MESSAGE = "Must be a valid e-mail address.";

// zod's e-mail rule, as a plain regex so that the document publishes it as
// the `pattern`: `format: email` alone (kept, as the reference API has it)
// allows addresses the rule refuses, such as `user@localhost` or a quoted
// local part.
export const EmailSchema = z
  .string({ error: EMAIL_MESSAGE })
  .regex(z.regexes.email, { error: EMAIL_MESSAGE })
  .max(254, { error: "Must be at most 254 characters." })
  .openapi("Email", {
    format: "email",
    description:
      "Email address for ticket purchaser, at most 254 characters. Besides `format: email`, `pattern` is the rule: ASCII letters, digits and `_ ' + -` in dot-separated parts before the `@`; a domain of two or more labels ending in letters (no quoted names, IP addresses or `localhost`).",
    example: "museum-lover@example.com",
  });

export const PhoneSchema = z
  .string()
  .regex(/^[0-9 +().-]{5,32}$/, { error: "Must be 5 to 32 characters of digits, spaces and + ( ) - ." })
  .openapi("Phone", { description: "Phone number for the ticket purchaser (optional).", example: "+1(234)-567-8910" });

/**
 * A valid ticket line, as the service works with it: a general ticket has no
 * event and may have an entry time, an event ticket has an event.
 */
const TicketLineSchema = z.discriminatedUnion("ticketType", [
  z.object({ ticketType: z.literal("general"), ticketDate: z.string(), entryTime: z.string().optional() }),
  z.object({ ticketType: z.literal("event"), ticketDate: z.string(), eventId: z.string() }),
]);
export type TicketLine = z.infer<typeof TicketLineSchema>;

const ContactSchema = z.object({ email: z.string(), phone: z.string().optional() });

/** A valid purchase of one ticket: a line and the buyer's contact. */
const PurchaseSchema = z.intersection(TicketLineSchema, ContactSchema);
type Purchase = z.infer<typeof PurchaseSchema>;

/** The fields that say which ticket is bought, as a request sends them. */
const lineFields = {
  ticketType: TicketTypeSchema,
  eventId: EventIdSchema.optional().openapi({
    description:
      "Unique identifier for a special event. Required if purchasing tickets for the museum's special events; refused for general tickets.",
  }),
  ticketDate: DateSchema.openapi({
    description:
      "Date that the ticket is valid for: today or later (museum time zone) and at most 365 days ahead; for an event ticket, one of the event's dates; for a general ticket, a day the museum is open (today: before it closes).",
  }),
  entryTime: TimeSchema.optional().openapi({
    description:
      "Entry slot (`HH:mm`) of a general ticket on a day with timed entry: required there (one of the day's slots that has not ended; see `GET /availability`), refused on other days and for event tickets.",
    example: "10:30",
  }),
};

/** The rules between a line's fields, reported per field with every other failure. */
function checkLineFields(line: { ticketType: TicketType; eventId?: string; entryTime?: string }, ctx: z.RefinementCtx) {
  if (line.ticketType === "event" && line.entryTime !== undefined) {
    ctx.addIssue({ code: "custom", path: ["entryTime"], message: "Must be left out for event tickets." });
  }
  if (line.ticketType === "event" && line.eventId === undefined) {
    ctx.addIssue({ code: "custom", path: ["eventId"], message: "Required for event tickets." });
  }
  if (line.ticketType === "general" && line.eventId !== undefined) {
    ctx.addIssue({ code: "custom", path: ["eventId"], message: "Must be left out for general tickets." });
  }
}

/**
 * The request body. It is validated (and documented in the OpenAPI document)
 * as one object, so that every offending field is reported at once and
 * `eventId` is one optional property, as in the API description; the valid
 * body then becomes the `Purchase` union.
 */
export const BuyMuseumTicketsRequestSchema = z
  .strictObject({ ...lineFields, email: EmailSchema, phone: PhoneSchema.optional() })
  .superRefine(checkLineFields)
  .pipe(PurchaseSchema)
  .openapi("BuyMuseumTicketsRequest", { description: "Request payload used for purchasing museum tickets." });

/** One ticket of an order, validated as a purchase's fields are. */
export const TicketLineRequestSchema = z
  .strictObject(lineFields)
  .superRefine(checkLineFields)
  .pipe(TicketLineSchema)
  .openapi("TicketLine", { description: "One ticket of an order: the fields of `POST /tickets` without the buyer's contact." });

export const TicketIdSchema = UuidSchema.openapi("TicketId", {
  description: "Unique identifier for museum ticket. Generated when purchased.",
  example: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
});

export const BuyMuseumTicketsResponseSchema = z
  .object({
    message: z.string().openapi("TicketMessage", {
      description: "Confirmation message after a ticket purchase.",
      example: "Museum general entry ticket purchased",
    }),
    eventName: z.string().optional().openapi({ description: "Name of the special event (event tickets only)." }),
    ticketId: TicketIdSchema,
    ticketType: TicketTypeSchema,
    ticketDate: DateSchema.openapi({ description: "Date the ticket is valid for." }),
    entryTime: TimeSchema.optional().openapi({ description: "Entry slot (timed-entry days only).", example: "10:30" }),
    confirmationCode: z.string().openapi("TicketConfirmation", {
      description: "Unique confirmation code used to verify ticket purchase.",
      example: "ticket-event-a98c8f-7eb12",
    }),
  })
  .openapi("BuyMuseumTicketsResponse", {
    description: "Details for a museum ticket after a successful purchase.",
  });
export type BuyMuseumTicketsResponse = z.infer<typeof BuyMuseumTicketsResponseSchema>;

export const IdempotencyHeadersSchema = z.object({
  "idempotency-key": z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/, { error: "Must be 1 to 255 printable ASCII characters." })
    .optional()
    .openapi({
      param: {
        // Lower case, as the key above (zod-to-openapi refuses a differing
        // name, and the whole document then fails); header names are
        // case-insensitive, so clients send `Idempotency-Key` all the same.
        name: "idempotency-key",
        in: "header",
        description:
          "Makes the request safe to retry: the same key and request from the same account within 24 hours returns the first successful response again (`Idempotent-Replayed: true`) and changes nothing more. A refused request keeps no key: it may be sent again and is judged again. Another request under the same key is 422.",
      },
      example: "9f1c2a6e-0d4b-4a8e-b1f7-6c2e8d0a4b31",
    }),
});

export const TicketIdParamsSchema = z.object({
  ticketId: TicketIdSchema.openapi({ param: { name: "ticketId", in: "path" } }),
});

export const AdmissionRequestSchema = z
  .strictObject({
    code: z
      .string({ error: "Must be the text read from the ticket's QR code." })
      .min(1, { error: "Must be 1 to 512 characters." })
      .max(512, { error: "Must be 1 to 512 characters." })
      .openapi({ description: "The text read from the ticket's QR code, as scanned.", example: "MT1.K1.E20261201.UJ5BLDTEOEJ3TDDGHK3VNBKN6I.2ZQ7XQ5YHJY5F3NWX5JVNO2ZQA" }),
  })
  .openapi("AdmissionRequest", { description: "A scanned ticket code." });

const EventIdOfTicket = EventIdSchema.optional().openapi({ description: "The event (event tickets only)." });
const EventNameOfTicket = z.string().optional().openapi({ description: "The event's name (event tickets only)." });
export const Timestamp = z.string().openapi({ format: "date-time", example: "2026-12-01T14:03:07.123Z" });
export const Price = z.number().openapi({ format: "float", example: 25 });

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
  })
  .openapi("AdmissionProblem", { description: "A refused admission (RFC 9457 problem details)." });

/** An ISO 4217 currency code (configuration: CURRENCY). */
export const CurrencySchema = z.string().openapi({ description: "ISO 4217 code of the museum's currency.", example: "USD" });

/** An amount owed back. */
export const RefundSchema = z
  .object({ amount: Price.openapi({ description: "In the museum's currency, at most two decimals.", example: 25 }) })
  .openapi("Refund");

const CancellationSchema = z
  .object({
    source: z
      .enum(["box-office", "event-deleted", "date-removed", "closure", "schedule-change"])
      .openapi({ description: "Who cancelled the ticket: the box office, or the museum by a change (which refunds the full price)." }),
    reason: z.string().optional().openapi({ description: "The box office's reason, when one was given." }),
    refund: RefundSchema,
  })
  .openapi("Cancellation", { description: "Why a cancelled ticket was cancelled, and what is owed back for it." });

export const TicketStatusSchema = z
  .object({
    ticketId: TicketIdSchema,
    ticketType: TicketTypeSchema,
    ticketDate: DateSchema,
    eventId: EventIdOfTicket,
    eventName: EventNameOfTicket,
    entryTime: TimeSchema.optional().openapi({ description: "Entry slot (timed-entry days only)." }),
    orderId: UuidSchema.optional().openapi({ description: "The order the ticket was bought in, if any." }),
    price: Price.openapi({ description: "The price recorded when the ticket was sold, in the museum's currency." }),
    currency: CurrencySchema,
    status: z.enum(["valid", "admitted", "cancelled"]).openapi("TicketStatusValue"),
    admittedAt: Timestamp.optional(),
    cancelledAt: Timestamp.optional(),
    cancellation: CancellationSchema.optional().openapi({ description: "Cancelled tickets only." }),
  })
  .openapi("TicketStatus", { description: "A ticket's state; never the buyer's contact details." });
export type TicketStatus = z.infer<typeof TicketStatusSchema>;

const AttendanceCountsShape = {
  sold: z.number().int().openapi({ description: "Tickets sold for the date, cancelled ones included." }),
  admitted: z.number().int(),
  cancelled: z.number().int(),
};

export const AttendanceSummarySchema = z
  .object({
    date: DateSchema,
    general: z.object(AttendanceCountsShape),
    events: z.array(z.object({ eventId: EventIdSchema, name: z.string(), ...AttendanceCountsShape })),
  })
  .openapi("AttendanceSummary", { description: "Tickets sold, admitted and cancelled for one date." });
export type AttendanceSummary = z.infer<typeof AttendanceSummarySchema>;

export const AttendanceQuerySchema = z.object({
  date: DateSchema.optional().openapi({
    param: { name: "date", in: "query", description: "The day counted (default: today, museum time zone)." },
  }),
});

export const AvailabilityQuerySchema = z.object({
  date: DateSchema.optional().openapi({
    param: {
      name: "date",
      in: "query",
      description: "The day (default: today, museum time zone); today or later, within the 365 days tickets are sold.",
    },
  }),
});

const Count = z.number().int();
const Limit = z.number().int().nullable().openapi({ description: "`null`: no limit." });

export const AvailabilitySchema = z
  .object({
    date: DateSchema,
    open: z.boolean().openapi({ description: "Whether the museum is open that day (events take place on closed days too)." }),
    general: z.object({
      capacity: Limit.openapi({ description: "The day's limit on general tickets; `null`: none." }),
      taken: Count.openapi({ description: "Valid and admitted general tickets for the day." }),
      available: Limit.openapi({
        description:
          "General tickets that can still be sold that day (0 on a closed day and once today's sales have ended; on a timed day the smaller of the day's room and the slots' room); `null`: no limit.",
      }),
      entrySlots: z
        .array(
          z.object({
            entryTime: TimeSchema,
            capacity: Count.openapi({ description: "The slot's limit (`slotCapacity`)." }),
            taken: Count,
            available: Count.openapi({ description: "The slot's own room, no more than the day's; 0 once the slot has ended." }),
          }),
        )
        .optional()
        .openapi({ description: "Timed-entry days only: every slot, in order." }),
    }),
    events: z.array(
      z.object({ eventId: EventIdSchema, name: z.string(), capacity: Limit, taken: Count, available: Limit }),
    ).openapi({ description: "The active events that take place that day, by name." }),
  })
  .openapi("Availability", {
    description: "What is left to sell on a day. Advice, read from a replica that may be a moment behind: the purchase decides.",
  });
export type Availability = z.infer<typeof AvailabilitySchema>;

export const CancellationRequestSchema = z
  .strictObject({
    reason: textField(200, { description: "Why the ticket is given back (kept in the ticket's status).", example: "Visitor ill" }).optional(),
  })
  .openapi("CancellationRequest", { description: "A box-office cancellation; send `{}` when there is no reason to record." });

export const TicketCancellationSchema = TicketStatusSchema.extend({
  refund: RefundSchema.openapi({ description: "What is owed back for this cancellation: the price recorded at the sale." }),
}).openapi("TicketCancellation", { description: "The ticket as cancelled now, and its refund." });
export type TicketCancellation = z.infer<typeof TicketCancellationSchema>;
