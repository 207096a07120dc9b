// The OCTO booking standard's shapes (octo.travel; @octocloud/types 2.x),
// as this service answers and reads them: the core without capabilities.
// Requests are read leniently as the standard's clients send them (a field
// this service does not use, such as `currency` or `emailReceipt`, is
// ignored); every value it uses is checked.
import { z } from "@hono/zod-openapi";
import { DateSchema } from "../http/openapi";

/** The one option of every product. */
export const DEFAULT_OPTION_ID = "DEFAULT";
/** The product of general admission (each active special event is a product named by its eventId). */
export const GENERAL_PRODUCT_ID = "general";
/** The most units one booking may have: an order's lines. */
export const MAX_UNITS = 50;

export const nullableText = (max: number) => z.string().max(max).nullable().optional();

// ---------- errors

const OCTO_ERRORS = [
  "INVALID_PRODUCT_ID",
  "INVALID_OPTION_ID",
  "INVALID_UNIT_ID",
  "INVALID_AVAILABILITY_ID",
  "INVALID_BOOKING_UUID",
  "BAD_REQUEST",
  "UNPROCESSABLE_ENTITY",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "TOO_MANY_REQUESTS",
  "INTERNAL_SERVER_ERROR",
] as const;
export type OctoErrorCode = (typeof OCTO_ERRORS)[number];

export const OctoErrorSchema = z
  .object({
    error: z.enum(OCTO_ERRORS),
    errorMessage: z.string(),
    productId: z.string().optional(),
    optionId: z.string().optional(),
    unitId: z.string().optional(),
    availabilityId: z.string().optional(),
    uuid: z.string().optional(),
  })
  .openapi("OctoError", {
    description:
      "An OCTO error: `error` the code, `errorMessage` for people; an invalid id is echoed in its own member. `400` for every code but `UNAUTHORIZED` (401), `FORBIDDEN` (403), `NOT_FOUND` (404), `TOO_MANY_REQUESTS` (429) and `INTERNAL_SERVER_ERROR` (500, 503).",
  });

// ---------- supplier, products

const SupplierContactSchema = z.object({
  website: z.string().nullable(),
  email: z.string().nullable(),
  telephone: z.string().nullable(),
  address: z.string().nullable(),
});

export const SupplierSchema = z
  .object({ id: z.string(), name: z.string(), endpoint: z.string(), contact: SupplierContactSchema })
  .openapi("OctoSupplier");

const UNIT_TYPES = ["ADULT", "YOUTH", "CHILD", "INFANT", "FAMILY", "SENIOR", "STUDENT", "MILITARY", "OTHER"] as const;
const CONTACT_FIELDS = ["firstName", "lastName", "emailAddress", "phoneNumber", "country", "notes", "locales", "allowMarketing", "postalCode"] as const;

const UnitSchema = z
  .object({
    id: z.string().openapi({ description: "The ticket category's id (`GET /v1.1/ticket-categories`)." }),
    internalName: z.string(),
    reference: z.string().nullable(),
    type: z.enum(UNIT_TYPES),
    restrictions: z.object({
      minAge: z.number().int(),
      maxAge: z.number().int(),
      idRequired: z.boolean(),
      minQuantity: z.number().int().nullable(),
      maxQuantity: z.number().int().nullable(),
      paxCount: z.number().int(),
      accompaniedBy: z.array(z.string()).openapi({ description: "An accompanied category: the units one of which must be booked with it." }),
    }),
    requiredContactFields: z.array(z.enum(CONTACT_FIELDS)),
  })
  .openapi("OctoUnit");
export type Unit = z.infer<typeof UnitSchema>;

const OptionSchema = z
  .object({
    id: z.literal(DEFAULT_OPTION_ID),
    default: z.boolean(),
    internalName: z.string(),
    reference: z.string().nullable(),
    availabilityLocalStartTimes: z.array(z.string()),
    cancellationCutoff: z.string(),
    cancellationCutoffAmount: z.number().int(),
    cancellationCutoffUnit: z.enum(["minute", "hour", "day"]),
    requiredContactFields: z.array(z.enum(CONTACT_FIELDS)),
    restrictions: z.object({ minUnits: z.number().int().nullable(), maxUnits: z.number().int().nullable() }),
    units: z.array(UnitSchema),
  })
  .openapi("OctoOption");

export const ProductSchema = z
  .object({
    id: z.string().openapi({ description: "`general` (general admission) or a special event's eventId." }),
    internalName: z.string(),
    reference: z.string().nullable(),
    locale: z.string(),
    timeZone: z.string(),
    allowFreesale: z.boolean(),
    instantConfirmation: z.boolean(),
    instantDelivery: z.boolean(),
    availabilityRequired: z.boolean(),
    availabilityType: z.enum(["START_TIME", "OPENING_HOURS"]),
    deliveryFormats: z.array(z.enum(["QRCODE"])),
    deliveryMethods: z.array(z.enum(["TICKET"])),
    redemptionMethod: z.enum(["DIGITAL"]),
    options: z.array(OptionSchema),
  })
  .openapi("OctoProduct");
export type Product = z.infer<typeof ProductSchema>;

export const ProductIdParamSchema = z.object({
  productId: z.string().max(100).openapi({ param: { name: "productId", in: "path" }, example: GENERAL_PRODUCT_ID }),
});

// ---------- availability

export const OpeningHoursSchema = z.object({ from: z.string(), to: z.string() });
const AVAILABILITY_STATUSES = ["AVAILABLE", "FREESALE", "SOLD_OUT", "LIMITED", "CLOSED"] as const;
export type AvailabilityStatus = (typeof AVAILABILITY_STATUSES)[number];

export const OctoAvailabilitySchema = z
  .object({
    id: z.string().openapi({ description: "The local date-time of the day's opening (or, for an event, its day's start) or of the entry slot's start.", example: "2026-05-04T09:00:00-04:00" }),
    localDateTimeStart: z.string(),
    localDateTimeEnd: z.string(),
    allDay: z.boolean(),
    available: z.boolean(),
    status: z.enum(AVAILABILITY_STATUSES),
    vacancies: z.number().int().nullable(),
    capacity: z.number().int().nullable(),
    maxUnits: z.number().int().nullable(),
    utcCutoffAt: z.string(),
    openingHours: z.array(OpeningHoursSchema),
  })
  .openapi("OctoAvailability");
export type OctoAvailability = z.infer<typeof OctoAvailabilitySchema>;

export const AvailabilityCalendarDaySchema = z
  .object({
    localDate: DateSchema,
    available: z.boolean(),
    status: z.enum(AVAILABILITY_STATUSES),
    vacancies: z.number().int().nullable(),
    capacity: z.number().int().nullable(),
    openingHours: z.array(OpeningHoursSchema),
  })
  .openapi("OctoAvailabilityCalendarDay");
export type AvailabilityCalendarDay = z.infer<typeof AvailabilityCalendarDaySchema>;

const UnitQuantitySchema = z.object({ id: z.string().max(100), quantity: z.number().int().min(0).max(50) });

export const AvailabilityCalendarBodySchema = z
  .object({
    productId: z.string().max(100),
    optionId: z.string().max(100),
    localDateStart: DateSchema,
    localDateEnd: DateSchema,
    units: z.array(UnitQuantitySchema).nullable().optional(),
  })
  .openapi("OctoAvailabilityCalendarRequest");

export const AvailabilityCheckBodySchema = z
  .object({
    productId: z.string().max(100),
    optionId: z.string().max(100),
    localDateStart: DateSchema.optional(),
    localDateEnd: DateSchema.optional(),
    availabilityIds: z.array(z.string().max(100)).min(1).max(100).optional(),
    units: z.array(UnitQuantitySchema).nullable().optional(),
  })
  .superRefine((body, ctx) => {
    const dates = body.localDateStart !== undefined || body.localDateEnd !== undefined;
    if (dates && body.availabilityIds !== undefined) {
      ctx.addIssue({ code: "custom", path: ["availabilityIds"], message: "cannot use localDateStart/localDateEnd and availabilityIds in the same request" });
    } else if (!dates && body.availabilityIds === undefined) {
      ctx.addIssue({ code: "custom", path: ["localDateStart"], message: "either localDateStart/localDateEnd or availabilityIds is required" });
    } else if (dates && (body.localDateStart === undefined || body.localDateEnd === undefined)) {
      ctx.addIssue({ code: "custom", path: [body.localDateStart === undefined ? "localDateStart" : "localDateEnd"], message: "localDateStart and localDateEnd come together" });
    }
  })
  .openapi("OctoAvailabilityCheckRequest");
export type AvailabilityCheckBody = z.infer<typeof AvailabilityCheckBodySchema>;
