import { z } from "@hono/zod-openapi";
import { EventIdSchema } from "../events/schemas";
import { DateSchema, TimeSchema, UuidSchema } from "../http/openapi";

export const TicketTypeSchema = z
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
export const TicketLineSchema = z.discriminatedUnion("ticketType", [
  z.object({
    ticketType: z.literal("general"),
    ticketDate: z.string(),
    entryTime: z.string().optional(),
    /**
     * A start time instead of an entry time (a reseller's availability): the
     * slot starting then on a timed day, the whole day when it is the day's
     * opening on an untimed one. Never with `entryTime`; never from /v1.1.
     */
    startTime: z.string().optional(),
    category: z.string().optional(),
  }),
  z.object({ ticketType: z.literal("event"), ticketDate: z.string(), eventId: z.string(), category: z.string().optional() }),
]);
export type TicketLine = z.infer<typeof TicketLineSchema>;

export const TicketIdSchema = UuidSchema.openapi("TicketId", {
  description: "Unique identifier for museum ticket. Generated when purchased.",
  example: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
});

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

/** The code a buyer shows at the desk (`GET /tickets?confirmationCode=`); not an admission code. */
export const ConfirmationCodeSchema = z.string().openapi("TicketConfirmation", {
  description: "Unique confirmation code used to verify ticket purchase.",
  example: "ticket-event-a98c8f-7eb12",
});

export const TicketIdParamsSchema = z.object({
  ticketId: TicketIdSchema.openapi({ param: { name: "ticketId", in: "path" } }),
});

export const EventIdOfTicket = EventIdSchema.optional().openapi({ description: "The event (event tickets only)." });
export const EventNameOfTicket = z.string().optional().openapi({ description: "The event's name (event tickets only)." });
export const Timestamp = z.string().openapi({ format: "date-time", example: "2026-12-01T14:03:07.123Z" });
export const Price = z.number().openapi({ format: "float", example: 25 });

/** An ISO 4217 currency code (configuration: CURRENCY). */
export const CurrencySchema = z.string().openapi({ description: "ISO 4217 code of the museum's currency.", example: "USD" });

/** An amount owed back. */
export const RefundSchema = z
  .object({ amount: Price.openapi({ description: "In the museum's currency, at most two decimals.", example: 25 }) })
  .openapi("Refund");

export const CancelSourceSchema = z
  .enum(["box-office", "event-deleted", "date-removed", "closure", "schedule-change", "hold-expired", "hold-released"])
  .openapi("CancellationSource", {
    description:
      "Who cancelled the ticket: the box office, the museum by a change (which refunds the full price), or a hold that ran out or was released (refund 0: nothing was paid).",
  });

/** Who cancelled a ticket: the box office, a change by the museum, or a hold that ran out or was released. */
export type CancelSource = z.infer<typeof CancelSourceSchema>;

/** The account that cancelled a ticket at the box office. */
export const CancelledBySchema = z
  .string()
  .optional()
  .openapi({ description: "The account that cancelled it at the box office (box-office cancellations only).", example: "front-desk-1" });

const CancellationSchema = z
  .object({
    source: CancelSourceSchema,
    by: CancelledBySchema,
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
    confirmationCode: ConfirmationCodeSchema,
    category: z.string().openapi({ description: "The ticket's category (`GET /ticket-categories`).", example: "adult" }),
    price: Price.openapi({ description: "The price recorded when the ticket was sold, in the museum's currency." }),
    currency: CurrencySchema,
    status: z.enum(["held", "valid", "admitted", "cancelled"]).openapi("TicketStatusValue", {
      description: "`held`: kept for an order being paid for (no image, no admission) until `expiresAt`.",
    }),
    expiresAt: Timestamp.optional().openapi({ description: "Held tickets only: when the hold ends (its places are free then)." }),
    admittedAt: Timestamp.optional(),
    cancelledAt: Timestamp.optional(),
    cancellation: CancellationSchema.optional().openapi({ description: "Cancelled tickets only." }),
  })
  .openapi("TicketStatus", { description: "A ticket's state; never the buyer's contact details." });
export type TicketStatus = z.infer<typeof TicketStatusSchema>;

/** A ticket's confirmation code as a phone or a visitor may show it: matched trimmed and in lower case. */
const CONFIRMATION_CODE = /^ticket-(general|event)-[a-z0-9]{6}-[a-z0-9]{5}$/;

export const ConfirmationCodeQuerySchema = z.object({
  confirmationCode: z
    .string({ error: "Required: the ticket's confirmation code." })
    .transform((code) => code.trim().toLowerCase())
    .refine((code) => CONFIRMATION_CODE.test(code), { error: "Must be a confirmation code, such as ticket-general-e5e5c6-dce78." })
    .openapi({
      param: {
        name: "confirmationCode",
        in: "query",
        description: "The ticket's confirmation code, as the buyer shows it: matched trimmed and in lower case (`Ticket-General-…` finds it).",
      },
      type: "string",
      // In lower case with the spaces a copy may add; any case is matched too.
      pattern: "^\\s*ticket-(general|event)-[a-z0-9]{6}-[a-z0-9]{5}\\s*$",
      example: "ticket-general-e5e5c6-dce78",
    }),
});
