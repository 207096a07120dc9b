import { z } from "@hono/zod-openapi";
import { CategoryIdSchema } from "../categories/schemas";
import { EventIdSchema } from "../events/schemas";
import { type FieldRule, withFieldRules } from "../http/field-rules";
import { DateSchema, textField, TimeSchema, UuidSchema } from "../http/openapi";
import { ConfirmationCodeSchema, CurrencySchema, EmailSchema, PhoneSchema, Price, TicketIdSchema, TicketLineSchema, TicketStatusSchema, TicketTypeSchema, Timestamp } from "../tickets/schemas";

const ContactSchema = z.object({ email: z.string(), phone: z.string().optional() });

/** A valid purchase of one ticket: a line and the buyer's contact. */
const PurchaseSchema = z.intersection(TicketLineSchema, ContactSchema);

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

/** The rules between a line's fields: a general ticket names no event, an event ticket names one and no entry time. */
const LINE_RULES: FieldRule[] = [
  {
    variants: "ticketType",
    cases: [
      { is: "general", refused: { eventId: "Must be left out for general tickets." } },
      { is: "event", required: { eventId: "Required for event tickets." }, refused: { entryTime: "Must be left out for event tickets." } },
    ],
  },
];

/**
 * The request body. It is validated (and documented in the OpenAPI document)
 * as one object, so that every offending field is reported at once and
 * `eventId` is one optional property, as in the API description; the valid
 * body then becomes the `Purchase` union.
 */
export const BuyMuseumTicketsRequestSchema = withFieldRules(
  z.strictObject({ ...lineFields, email: EmailSchema, phone: PhoneSchema.optional() }),
  LINE_RULES,
)
  .pipe(PurchaseSchema)
  .openapi("BuyMuseumTicketsRequest", { description: "Request payload used for purchasing museum tickets." });

/** One ticket of an order, validated as a purchase's fields are. */
const TicketLineRequestSchema = withFieldRules(z.strictObject(lineFields), LINE_RULES)
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
    confirmationCode: ConfirmationCodeSchema,
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

export const CalendarQuerySchema = z.object({
  startDate: DateSchema.optional().openapi({
    param: {
      name: "startDate",
      in: "query",
      description: "The first day (default: today, museum time zone); today or later, within the 365 days tickets are sold.",
    },
  }),
  endDate: DateSchema.optional().openapi({
    param: {
      name: "endDate",
      in: "query",
      description:
        "The last day: not before `startDate`, at most 61 days after it (62 days in all), within the 365 days tickets are sold (default: `startDate` + 30 days, or the last day tickets are sold when that is earlier).",
    },
  }),
});

const SaleStatusSchema = z.enum(["closed", "sold-out", "limited", "available"]).openapi("SaleStatus", {
  description:
    "A product's status on a day: `closed` when it is not on sale (the museum closed, or today's general sales over); `sold-out` when nothing is left; `limited` when less than half is left of what it can sell that day (the daily `capacity`, or on a timed day without one the sum of its slots' capacities); `available` otherwise, no limit included. A day's status: `available` if any product is, else `limited` if any is, else `sold-out` if any is on sale, else `closed`.",
});
export type SaleStatus = z.infer<typeof SaleStatusSchema>;

export const CalendarSchema = z
  .object({
    startDate: DateSchema,
    endDate: DateSchema,
    days: z
      .array(
        z.object({
          date: DateSchema,
          status: SaleStatusSchema,
          general: z.object({
            status: SaleStatusSchema,
            capacity: Limit.openapi({ description: "The day's limit on general tickets; `null`: none." }),
            available: Limit.openapi({ description: "General tickets that can still be sold that day, as `GET /availability` answers; `null`: no limit." }),
          }),
          events: z
            .array(z.object({ eventId: EventIdSchema, name: z.string(), status: SaleStatusSchema, capacity: Limit, available: Limit }))
            .openapi({ description: "The active events that take place that day, by name." }),
        }),
      )
      .openapi({ description: "Every date from `startDate` to `endDate`, in order; each figure what `GET /availability` answers for that date." }),
  })
  .openapi("AvailabilityCalendar", {
    description: "What is left to sell on each day of a range, for a month view. Advice, read from a replica that may be a moment behind: the purchase decides.",
  });
export type AvailabilityCalendar = z.infer<typeof CalendarSchema>;

/** The most lines an order may have (a school class). */
const MAX_ORDER_LINES = 50;

const linesMessage = `Must be 1 to ${MAX_ORDER_LINES} tickets.`;

/** The seller's own order number (a web shop's), unique per account. */
const ReferenceSchema = textField(64, {
  description: "The seller's own order reference (a web shop's order number), 1 to 64 characters, unique per account.",
  example: "SHOP-2026-000123",
});

/** The longest a hold is asked for at once (minutes): a new one, an extension. */
export const MAX_HOLD_MINUTES = 60;
const HOLD_MINUTES_MESSAGE = `Must be a whole number of minutes from 1 to ${MAX_HOLD_MINUTES}.`;

/**
 * A hold never ends more than this many minutes after its order was made,
 * however often it is extended: a leaked key cannot keep places off sale for ever.
 */
export const HOLD_LIMIT_MINUTES = 120;

const HoldMinutesSchema = z
  .number({ error: HOLD_MINUTES_MESSAGE })
  .int({ error: HOLD_MINUTES_MESSAGE })
  .min(1, { error: HOLD_MINUTES_MESSAGE })
  .max(MAX_HOLD_MINUTES, { error: HOLD_MINUTES_MESSAGE })
  .openapi({
    description:
      "Hold the order for this many minutes while the buyer pays (1–60), capped at the moment the first of its tickets stops being sold; confirm it with `POST /orders/{orderId}/confirmation`.",
    example: 15,
  });

export const OrderRequestSchema = withFieldRules(
  z.strictObject({
    email: EmailSchema.optional().openapi({ description: "The buyer's e-mail: required unless `holdMinutes` is given (the confirmation brings it then)." }),
    phone: PhoneSchema.optional(),
    reference: ReferenceSchema.optional(),
    holdMinutes: HoldMinutesSchema.optional(),
    tickets: z
      .array(TicketLineRequestSchema, { error: linesMessage })
      .min(1, { error: linesMessage })
      .max(MAX_ORDER_LINES, { error: linesMessage })
      .openapi({ description: "The tickets, each following the rules of `POST /tickets`; sold all or nothing." }),
  }),
  [{ requiredUnless: "email", other: "holdMinutes", message: "Required unless the order is held (holdMinutes)." }],
).openapi("OrderRequest", { description: "Several tickets for one buyer, bought in one purchase, or held while the buyer pays." });

const OrderIdSchema = UuidSchema.openapi("OrderId", {
  description: "Unique identifier of an order.",
  example: "3f0c9a52-5a3b-4f7e-9d7b-1f1c2e9b6a10",
});

export const OrderIdParamsSchema = z.object({
  orderId: OrderIdSchema.openapi({ param: { name: "orderId", in: "path" } }),
});

const Total = Price.openapi({ description: "The sum of the tickets' prices as sold, in the museum's currency.", example: 100 });

const OrderStatusValueSchema = z.enum(["held", "confirmed", "expired", "released"]).openapi("OrderStatusValue", {
  description:
    "`held`: its places are kept until `expiresAt`; `confirmed`: sold; `expired`: the hold ran out (its places are free; a late confirmation may still sell it); `released`: given up, never sold.",
});
const ExpiresAt = Timestamp.optional().openapi({ description: "Held and expired orders: when the hold ends (RFC 3339 UTC), by the database's clock." });

export const OrderSchema = z
  .object({
    orderId: OrderIdSchema,
    reference: ReferenceSchema.optional(),
    status: z.enum(["held", "confirmed"]).openapi({ description: "`held` with `holdMinutes`, else `confirmed` (sold at once)." }),
    expiresAt: ExpiresAt,
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
        confirmationCode: ConfirmationCodeSchema,
      }),
    ),
  })
  .openapi("Order", { description: "An order as sold: its tickets in the order of the lines." });
export type Order = z.infer<typeof OrderSchema>;

export const OrderStatusSchema = z
  .object({
    orderId: OrderIdSchema,
    reference: ReferenceSchema.optional(),
    status: OrderStatusValueSchema,
    expiresAt: ExpiresAt,
    createdAt: Timestamp,
    totalPrice: Total,
    currency: CurrencySchema,
    tickets: z.array(TicketStatusSchema).openapi({ description: "Each ticket's status, in the order of the lines; refunds show here." }),
  })
  .openapi("OrderStatus", { description: "An order and each of its tickets' status; never the buyer's contact details." });
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

export const OrderReferenceQuerySchema = z.object({
  reference: ReferenceSchema.openapi({
    param: { name: "reference", in: "query" },
  }),
});

export const OrderStatusListSchema = z
  .array(OrderStatusSchema)
  .openapi("OrderStatusList", { description: "The orders with the reference, newest first; `[]` when none." });

export const OrderConfirmationRequestSchema = withFieldRules(
  z.strictObject({
    email: EmailSchema.optional().openapi({ description: "The buyer's e-mail, replacing the held order's; required when the order has none." }),
    phone: PhoneSchema.optional().openapi({ description: "The buyer's phone, replacing the held order's: `phone` only together with `email`." }),
  }),
  [{ requiredWith: "email", other: "phone", message: "Required with phone: the buyer's contact is given whole." }],
).openapi("OrderConfirmationRequest", { description: "Send nothing, `{}`, or the buyer's contact when the hold was made without it." });

export const OrderConfirmationSchema = OrderStatusSchema.extend({
  lateConfirmation: z
    .boolean()
    .optional()
    .openapi({ description: "`true` when the hold had run out and its places were still free: sold all the same." }),
}).openapi("OrderConfirmation", { description: "The order as confirmed: every ticket valid, at the prices recorded when it was held." });
export type OrderConfirmation = z.infer<typeof OrderConfirmationSchema>;

export const HoldRequestSchema = z
  .strictObject({ holdMinutes: HoldMinutesSchema })
  .openapi("HoldRequest", { description: "Keep a held order's places longer while the buyer pays." });
