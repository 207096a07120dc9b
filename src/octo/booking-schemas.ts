// OCTO's bookings as this service reads and answers them (requests read
// leniently, as schemas.ts says; every value used is checked).
import { z } from "@hono/zod-openapi";
import { DateSchema, UuidSchema } from "../http/openapi";
import { EmailSchema, PhoneSchema } from "../tickets/schemas";
import { MAX_UNITS, nullableText, OpeningHoursSchema } from "./schemas";

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
