import { z } from "@hono/zod-openapi";
import { CategoryIdSchema } from "../categories/schemas";
import { EventIdSchema } from "../events/schemas";
import { eventName } from "../events/statements";
import { DateSchema, TimeSchema, UuidSchema } from "../http/openapi";
import { CurrencySchema, EmailSchema, PhoneSchema, Price, TicketIdSchema, TicketLineSchema, TicketStatusSchema, type TicketType, TicketTypeSchema, Timestamp } from "../tickets/schemas";

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
  category: CategoryIdSchema.optional().openapi({
    description:
      "The ticket's category (`GET /ticket-categories`), which sets its price; left out: the default category. An `accompanied` category is sold only in an order with a companion's ticket (same date, event or general entry, and entry time).",
    example: "adult",
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
const TicketLineRequestSchema = z
  .strictObject(lineFields)
  .superRefine(checkLineFields)
  .pipe(TicketLineSchema)
  .openapi("TicketLine", { description: "One ticket of an order: the fields of `POST /tickets` without the buyer's contact." });

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

const PricesSchema = z
  .array(
    z.object({
      category: CategoryIdSchema,
      name: z.string().openapi({ description: "The category's name.", example: "Child" }),
      price: Price.openapi({ description: "A ticket's price in this category, in the museum's currency." }),
    }),
  )
  .openapi("CategoryPriceList", { description: "The price of a ticket in each category on sale, by `categoryId`." });
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
      prices: PricesSchema,
    }),
    events: z.array(
      z.object({ eventId: EventIdSchema, name: z.string(), capacity: Limit, taken: Count, available: Limit, prices: PricesSchema }),
    ).openapi({ description: "The active events that take place that day, by name." }),
  })
  .openapi("Availability", {
    description: "What is left to sell on a day. Advice, read from a replica that may be a moment behind: the purchase decides.",
  });
export type Availability = z.infer<typeof AvailabilitySchema>;

/** The most lines an order may have (a school class). */
const MAX_ORDER_LINES = 50;

const linesMessage = `Must be 1 to ${MAX_ORDER_LINES} tickets.`;

export const OrderRequestSchema = z
  .strictObject({
    email: EmailSchema,
    phone: PhoneSchema.optional(),
    tickets: z
      .array(TicketLineRequestSchema, { error: linesMessage })
      .min(1, { error: linesMessage })
      .max(MAX_ORDER_LINES, { error: linesMessage })
      .openapi({ description: "The tickets, each following the rules of `POST /tickets`; sold all or nothing." }),
  })
  .openapi("OrderRequest", { description: "Several tickets for one buyer, bought in one purchase." });
type OrderRequest = z.infer<typeof OrderRequestSchema>;

const OrderIdSchema = UuidSchema.openapi("OrderId", {
  description: "Unique identifier of an order.",
  example: "3f0c9a52-5a3b-4f7e-9d7b-1f1c2e9b6a10",
});

export const OrderIdParamsSchema = z.object({
  orderId: OrderIdSchema.openapi({ param: { name: "orderId", in: "path" } }),
});

const Total = Price.openapi({ description: "The sum of the tickets' prices as sold, in the museum's currency.", example: 100 });

export const OrderSchema = z
  .object({
    orderId: OrderIdSchema,
    totalPrice: Total,
    currency: CurrencySchema,
    tickets: z.array(
      z.object({
        ticketId: TicketIdSchema,
        ticketType: z.enum(["event", "general"]),
        ticketDate: DateSchema,
        eventId: EventIdSchema.optional(),
        eventName: z.string().optional(),
        entryTime: TimeSchema.optional(),
        category: CategoryIdSchema,
        price: Price,
        confirmationCode: z.string().openapi({ example: "ticket-general-e5e5c6-dce78" }),
      }),
    ),
  })
  .openapi("Order", { description: "An order as sold: its tickets in the order of the lines." });
export type Order = z.infer<typeof OrderSchema>;

export const OrderStatusSchema = z
  .object({
    orderId: OrderIdSchema,
    createdAt: Timestamp,
    totalPrice: Total,
    currency: CurrencySchema,
    tickets: z.array(TicketStatusSchema).openapi({ description: "Each ticket's status, in the order of the lines; refunds show here." }),
  })
  .openapi("OrderStatus", { description: "An order and each of its tickets' status; never the buyer's contact details." });
export type OrderStatus = z.infer<typeof OrderStatusSchema>;
