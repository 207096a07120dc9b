// The OCTO booking standard's shapes (octo.travel; @octocloud/types 2.x),
// as this service answers and reads them: the core without capabilities.
// Requests are read leniently as the standard's clients send them (a field
// this service does not use, such as `currency` or `emailReceipt`, is
// ignored); every value it uses is checked.
import { z } from "@hono/zod-openapi";
import { DateSchema, UuidSchema } from "../http/openapi";
import { EmailSchema, PhoneSchema } from "../tickets/schemas";

/** The one option of every product. */
export const DEFAULT_OPTION_ID = "DEFAULT";
/** The product of general admission (each active special event is a product named by its eventId). */
export const GENERAL_PRODUCT_ID = "general";
/** The most units one booking may have: an order's lines. */
export const MAX_UNITS = 50;

const nullableText = (max: number) => z.string().max(max).nullable().optional();

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

const OpeningHoursSchema = z.object({ from: z.string(), to: z.string() });
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

// ---------- bookings

const ContactBodySchema = z
  .object({
    fullName: nullableText(200),
    firstName: nullableText(100),
    lastName: nullableText(100),
    emailAddress: EmailSchema.nullable().optional(),
    phoneNumber: PhoneSchema.nullable().optional(),
    locales: z.array(z.string().max(35)).max(20).optional(),
    postalCode: nullableText(20),
    country: nullableText(2),
    notes: nullableText(1000),
  })
  .openapi("OctoContactRequest");
export type ContactBody = z.infer<typeof ContactBodySchema>;

const BookingUnitItemBodySchema = z.object({
  uuid: z.string().max(100).optional(),
  unitId: z.string().max(100),
  resellerReference: z.string().max(100).optional(),
  contact: ContactBodySchema.optional(),
});

/** An order's lines: 1 to 50. */
const UnitItemsBodySchema = z.array(BookingUnitItemBodySchema).min(1).max(MAX_UNITS);

const ResellerReferenceSchema = z.string().regex(/^[\x20-\x7e]{1,64}$/, { error: "Must be 1 to 64 printable ASCII characters." });
const ExpirationMinutesSchema = z.number().int().min(1).max(60).openapi({ description: "How long the hold lasts (1–60 minutes; 30 when not given)." });

export const BookingReservationBodySchema = z
  .object({
    uuid: UuidSchema.optional().openapi({ description: "The reseller's id of the booking: the same uuid again answers the booking and makes nothing." }),
    productId: z.string().max(100),
    optionId: z.string().max(100),
    availabilityId: z.string().max(100),
    expirationMinutes: ExpirationMinutesSchema.optional(),
    notes: nullableText(1000),
    unitItems: UnitItemsBodySchema,
    resellerReference: ResellerReferenceSchema.optional(),
    contact: ContactBodySchema.optional(),
  })
  .openapi("OctoBookingReservationRequest");
export type BookingReservationBody = z.infer<typeof BookingReservationBodySchema>;

export const BookingConfirmationBodySchema = z
  .object({
    resellerReference: ResellerReferenceSchema.optional(),
    contact: ContactBodySchema,
    unitItems: UnitItemsBodySchema.optional(),
  })
  .openapi("OctoBookingConfirmationRequest");
export type BookingConfirmationBody = z.infer<typeof BookingConfirmationBodySchema>;

export const BookingUpdateBodySchema = z
  .object({
    resellerReference: ResellerReferenceSchema.optional(),
    productId: z.string().max(100).optional(),
    optionId: z.string().max(100).optional(),
    availabilityId: z.string().max(100).optional(),
    expirationMinutes: ExpirationMinutesSchema.optional(),
    notes: nullableText(1000),
    unitItems: UnitItemsBodySchema.optional(),
    contact: ContactBodySchema.optional(),
  })
  .openapi("OctoBookingUpdateRequest");
export type BookingUpdateBody = z.infer<typeof BookingUpdateBodySchema>;

export const ExtendBodySchema = z.object({ expirationMinutes: ExpirationMinutesSchema.optional() }).openapi("OctoExtendReservationRequest");

export const CancelBodySchema = z.object({ reason: z.string().max(200).nullable().optional() }).openapi("OctoBookingCancellationRequest");

export const BookingUuidParamSchema = z.object({
  uuid: z.string().max(100).openapi({ param: { name: "uuid", in: "path" }, example: "5d7e0f8a-0c1f-4f63-9d3b-1f1a2b3c4d5e" }),
});

export const BookingsQuerySchema = z.object({
  resellerReference: z.string().max(64).optional().openapi({ param: { name: "resellerReference", in: "query" } }),
  supplierReference: z.string().max(64).optional().openapi({ param: { name: "supplierReference", in: "query" } }),
  localDate: DateSchema.optional().openapi({ param: { name: "localDate", in: "query" } }),
  localDateStart: DateSchema.optional().openapi({ param: { name: "localDateStart", in: "query" } }),
  localDateEnd: DateSchema.optional().openapi({ param: { name: "localDateEnd", in: "query" } }),
});
export type BookingsQuery = z.infer<typeof BookingsQuerySchema>;

const ContactSchema = z
  .object({
    fullName: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    emailAddress: z.string().nullable(),
    phoneNumber: z.string().nullable(),
    locales: z.array(z.string()),
    postalCode: z.string().nullable(),
    country: z.string().nullable(),
    notes: z.string().nullable(),
  })
  .openapi("OctoContact");
export type Contact = z.infer<typeof ContactSchema>;

const BOOKING_STATUSES = ["ON_HOLD", "CONFIRMED", "EXPIRED", "CANCELLED", "REDEEMED"] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

const TicketSchema = z
  .object({
    redemptionMethod: z.enum(["DIGITAL"]),
    utcRedeemedAt: z.string().nullable(),
    deliveryOptions: z.array(z.object({ deliveryFormat: z.enum(["QRCODE"]), deliveryValue: z.string() })).openapi({
      description: "A sold ticket's code (the text of its QR code, what a gate scans); none while it is held or once cancelled.",
    }),
  })
  .openapi("OctoTicket");

const UnitItemSchema = z
  .object({
    uuid: z.string().openapi({ description: "The ticket's ticketId." }),
    resellerReference: z.string().nullable(),
    supplierReference: z.string().nullable().openapi({ description: "The ticket's confirmation code." }),
    unitId: z.string(),
    status: z.enum(BOOKING_STATUSES),
    utcRedeemedAt: z.string().nullable(),
    contact: ContactSchema,
    ticket: TicketSchema,
  })
  .openapi("OctoUnitItem");
export type UnitItem = z.infer<typeof UnitItemSchema>;

const BookingAvailabilitySchema = z.object({
  id: z.string(),
  localDateTimeStart: z.string(),
  localDateTimeEnd: z.string(),
  allDay: z.boolean(),
  openingHours: z.array(OpeningHoursSchema),
});

export const BookingSchema = z
  .object({
    id: z.string().openapi({ description: "The order's orderId (a change of a held booking's unit items, date or product makes a new order)." }),
    uuid: z.string(),
    testMode: z.boolean(),
    resellerReference: z.string().nullable().openapi({ description: "The order's `reference`." }),
    supplierReference: z.string().nullable().openapi({ description: "The order's own confirmation code." }),
    status: z.enum(BOOKING_STATUSES),
    utcCreatedAt: z.string(),
    utcUpdatedAt: z.string().nullable(),
    utcExpiresAt: z.string().nullable(),
    utcRedeemedAt: z.string().nullable(),
    utcConfirmedAt: z.string().nullable(),
    productId: z.string(),
    optionId: z.string(),
    cancellable: z.boolean(),
    cancellation: z
      .object({ refund: z.enum(["FULL", "PARTIAL", "NONE"]), reason: z.string().nullable(), utcCancelledAt: z.string() })
      .nullable(),
    freesale: z.boolean(),
    availabilityId: z.string().nullable(),
    availability: BookingAvailabilitySchema.nullable(),
    contact: ContactSchema,
    notes: z.string().nullable(),
    deliveryMethods: z.array(z.enum(["TICKET"])),
    voucher: z.null(),
    unitItems: z.array(UnitItemSchema),
  })
  .openapi("OctoBooking");
export type Booking = z.infer<typeof BookingSchema>;
