import { z } from "@hono/zod-openapi";
import { CATEGORY_ID, CategoryIdSchema } from "../categories/schemas";
import { DateSchema, priceField, textField, UuidSchema, wholeNumber } from "../http/openapi";
import { PaginationQuerySchema } from "../http/pagination";

export const EventIdSchema = UuidSchema.openapi({
  description: "Identifier for a special event.",
  example: "3be6453c-03eb-4357-ae5a-984a0e574a54",
});

const EventNameSchema = textField(200, { description: "Name of the special event.", example: "Pirate Coding Workshop" });
const EventLocationSchema = textField(200, {
  description: "Location where the special event is held.",
  example: "Computer Room",
});
const EventDescriptionSchema = textField(5000, {
  description: "Description of the special event.",
  example: "Captain Blackbeard shares his love of the C...language. And possibly Arrrrr (R lang).",
  multiline: true,
});

/**
 * An event's date: 2000-01-01 to 2099-12-31. Past dates are allowed (the
 * museum may record its history); the bounds keep out typing mistakes such
 * as 0202 or 9999, in a `pattern` any validator can check.
 */
const EVENT_DATE_YEARS = /^20[0-9]{2}-/;
const FIRST_EVENT_DATE = "2000-01-01";
const LAST_EVENT_DATE = "2099-12-31";
const EventDateSchema = DateSchema.regex(EVENT_DATE_YEARS, { error: `Must be from ${FIRST_EVENT_DATE} to ${LAST_EVENT_DATE}.` }).openapi({
  pattern: EVENT_DATE_YEARS.source,
  description: `A date from ${FIRST_EVENT_DATE} to ${LAST_EVENT_DATE} (past dates are allowed).`,
});

const EventDatesSchema = z
  .array(EventDateSchema)
  .min(1, { error: "Must list 1 to 366 dates." })
  .max(366, { error: "Must list 1 to 366 dates." })
  .superRefine((dates, ctx) => {
    const seen = new Set<string>();
    dates.forEach((date, index) => {
      if (seen.has(date)) {
        ctx.addIssue({ code: "custom", path: [index], message: `Repeats the date ${date}.` });
      }
      seen.add(date);
    });
  })
  .openapi({
    description: `List of planned dates for the special event, each once, from ${FIRST_EVENT_DATE} to ${LAST_EVENT_DATE} (past dates are allowed: the museum may record its history).`,
    uniqueItems: true,
  });

const EventPriceSchema = priceField("Price of a ticket for the special event, at most two decimals.", 25);

const EventCapacitySchema = wholeNumber(
  1,
  100_000,
  "The most tickets for each of the event's dates (no limit when left out).",
  40,
);

/** The most categories an event prices on its own. */
const MAX_CATEGORY_PRICES = 50;

// JSON Schema's `propertyNames`, which the metadata's type does not list.
const KEYS_ARE_CATEGORY_IDS = { propertyNames: { pattern: CATEGORY_ID.source } };

const CategoryPricesSchema = z
  .record(CategoryIdSchema, priceField("The price of a ticket in this category.", 10))
  .refine((prices) => Object.keys(prices).length <= MAX_CATEGORY_PRICES, {
    error: `Must price at most ${MAX_CATEGORY_PRICES} categories.`,
  })
  .openapi("CategoryPrices", {
    description:
      "The event's price per ticket category (`categoryId`: price); a category not listed pays `price`. Each must be an active category, or one the event already had.",
    maxProperties: MAX_CATEGORY_PRICES,
    ...KEYS_ARE_CATEGORY_IDS,
  });
export type CategoryPrices = z.infer<typeof CategoryPricesSchema>;

const eventFields = {
  name: EventNameSchema,
  location: EventLocationSchema,
  eventDescription: EventDescriptionSchema,
  dates: EventDatesSchema,
  price: EventPriceSchema,
};

export const CreateSpecialEventRequestSchema = z
  .strictObject({ ...eventFields, capacity: EventCapacitySchema.optional(), categoryPrices: CategoryPricesSchema.optional() })
  .openapi("CreateSpecialEventRequest", {
    description: "Request payload for creating new special events at the museum.",
  });
export type CreateSpecialEventRequest = z.infer<typeof CreateSpecialEventRequestSchema>;

export const UpdateSpecialEventRequestSchema = z
  .strictObject({
    ...eventFields,
    capacity: EventCapacitySchema.nullable().openapi({
      description: "The most tickets for each of the event's dates; `null` removes the limit.",
    }),
    categoryPrices: CategoryPricesSchema.nullable().openapi({
      description: "Replaces the event's prices per category; `null` removes them (every category then pays `price`).",
    }),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, {
    error: "Send at least one field to change.",
    // Only for a body that is otherwise clean: `{ "colour": "red" }` is
    // reported as the unknown field it has, not also as having no fields.
    when: (payload) => payload.issues.length === 0,
  })
  .openapi("UpdateSpecialEventRequest", {
    description:
      "Request payload for updating an existing special event. Only included fields are updated in the event; at least one is needed.",
    minProperties: 1,
  });
export type UpdateSpecialEventRequest = z.infer<typeof UpdateSpecialEventRequestSchema>;

export const SpecialEventResponseSchema = z
  .object({
    eventId: EventIdSchema,
    name: EventNameSchema,
    location: EventLocationSchema,
    eventDescription: EventDescriptionSchema,
    dates: EventDatesSchema,
    price: EventPriceSchema,
    capacity: EventCapacitySchema.optional(),
    categoryPrices: CategoryPricesSchema.optional(),
  })
  .openapi("SpecialEventResponse", { description: "Information about a special event." });
export type SpecialEvent = z.infer<typeof SpecialEventResponseSchema>;

export const ListSpecialEventsResponseSchema = z
  .array(SpecialEventResponseSchema)
  .openapi("ListSpecialEventsResponse", { description: "List of upcoming special events." });

export const EventIdParamsSchema = z.object({
  eventId: EventIdSchema.openapi({ param: { name: "eventId", in: "path" } }),
});

export const ListSpecialEventsQuerySchema = z
  .object({
    startDate: DateSchema.optional().openapi({
      param: {
        name: "startDate",
        in: "query",
        description: "First day of the window (default: today in the museum's time zone).",
      },
    }),
    endDate: DateSchema.optional().openapi({
      param: {
        name: "endDate",
        in: "query",
        description: "Last day of the window, not before `startDate` (default: 7 days after `startDate`).",
      },
    }),
  })
  .extend(PaginationQuerySchema.shape);
