// The OCTO core operations (docs/octo.md), declared for validation and for
// the document served at /octo/openapi.json.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, jsonRequestBody } from "../http/openapi";
import { AvailabilityCalendarBodySchema, AvailabilityCalendarDaySchema, AvailabilityCheckBodySchema, OctoAvailabilitySchema, OctoErrorSchema, ProductIdParamSchema, ProductSchema, SupplierSchema } from "./schemas";
import { BookingConfirmationBodySchema, BookingReservationBodySchema, BookingSchema, BookingsQuerySchema, BookingUpdateBodySchema, BookingUuidParamSchema, CancelBodySchema, ExtendBodySchema } from "./booking-schemas";

const TAG = "OCTO";

/** The response header naming the capabilities a request initialized, and its value here: none (OCTO core only). */
export const OCTO_CAPABILITIES = "Octo-Capabilities";
export const NO_CAPABILITIES = "";

/** A successful answer: `schema` as JSON, with the `Octo-Capabilities` header OCTO requires. */
const answer = <T extends z.ZodType>(schema: T, description: string) => ({
  ...jsonContent(schema, description),
  headers: {
    [OCTO_CAPABILITIES]: {
      required: true,
      description: "The capabilities initialized for the request: none (this service implements OCTO core only), whatever the request's `Octo-Capabilities` asked for.",
      schema: { type: "string" as const },
    },
  },
});

const error = (description: string) => ({ description, content: { "application/json": { schema: OctoErrorSchema } } });

/** What every OCTO operation may answer besides its own. */
const ERRORS = {
  400: error("`BAD_REQUEST`, an `INVALID_…_ID` of the operation, or `UNPROCESSABLE_ENTITY` (a request the museum's rules refuse: sold out, hold ended, …)."),
  401: error("`UNAUTHORIZED`: no API key, or a wrong or revoked one."),
  403: error("`FORBIDDEN`: the key's account may not sell."),
  429: error("`TOO_MANY_REQUESTS`: too many wrong keys from this client; retry after `Retry-After` seconds."),
  500: error("`INTERNAL_SERVER_ERROR`: nothing internal is said; 503 with `Retry-After` when the database is unavailable for a moment."),
};

const BookingResponse = { 200: answer(BookingSchema, "The booking."), ...ERRORS };

export const getSupplier = createRoute({
  method: "get",
  path: "/supplier",
  tags: [TAG],
  summary: "The museum as an OCTO supplier",
  operationId: "getSupplier",
  description: "Who the museum is to a reseller: its id, name, this API's endpoint and how to reach it.",
  responses: { 200: answer(SupplierSchema, "The supplier."), ...ERRORS },
});

export const getProducts = createRoute({
  method: "get",
  path: "/products",
  tags: [TAG],
  summary: "Products: general admission, then each active special event",
  operationId: "getProducts",
  description: "General admission (`general`) and each active special event (its eventId), each with the one option `DEFAULT` whose units are the ticket categories on sale. General admission is `START_TIME` when some day sold has timed entry, else `OPENING_HOURS`; events are `OPENING_HOURS`.",
  responses: { 200: answer(z.array(ProductSchema), "Every product."), ...ERRORS },
});

export const getProduct = createRoute({
  method: "get",
  path: "/products/{productId}",
  tags: [TAG],
  summary: "One product",
  operationId: "getProduct",
  description: "One product of `GET /products`; an unknown id is `INVALID_PRODUCT_ID`.",
  request: { params: ProductIdParamSchema },
  responses: { 200: answer(ProductSchema, "The product."), ...ERRORS },
});

export const octoCalendar = createRoute({
  method: "post",
  path: "/availability/calendar",
  tags: [TAG],
  summary: "A product's days: the figures and statuses of GET /v1.1/availability/calendar",
  operationId: "availabilityCalendar",
  description: "One entry per day the product is sold on between `localDateStart` and `localDateEnd` (at most a year), with exactly the figures and statuses `GET /v1.1/availability/calendar` answers: closed days are not listed.",
  request: { body: jsonRequestBody(AvailabilityCalendarBodySchema) },
  responses: { 200: answer(z.array(AvailabilityCalendarDaySchema), "One entry per day the product is sold on."), ...ERRORS },
});

export const octoAvailability = createRoute({
  method: "post",
  path: "/availability",
  tags: [TAG],
  summary: "A product's availabilities: its days, or entry slots on timed days",
  operationId: "availabilityCheck",
  description: "The product's availabilities over a range of days, or those named by `availabilityIds`: one per entry slot on a timed day, one per day otherwise. An availability's id is the local date-time, with the museum's offset, of the slot's start or the day's opening (an event's: its day's start). The figures are `GET /v1.1/availability`'s.",
  request: { body: jsonRequestBody(AvailabilityCheckBodySchema) },
  responses: { 200: answer(z.array(OctoAvailabilitySchema), "The availabilities."), ...ERRORS },
});

export const reserveBooking = createRoute({
  method: "post",
  path: "/bookings",
  tags: [TAG],
  summary: "Put a booking on hold (a held order)",
  operationId: "bookingReservation",
  description: "A held order of one ticket per unit item, for `expirationMinutes` (1 to 60; 30 when not given), under every rule of a `/v1.1` sale. The reseller's `uuid` names the booking: sent again, it answers the booking as it stands and makes nothing.",
  request: { body: jsonRequestBody(BookingReservationBodySchema) },
  responses: BookingResponse,
});

export const extendBooking = createRoute({
  method: "post",
  path: "/bookings/{uuid}/extend",
  tags: [TAG],
  summary: "Extend a booking's hold",
  operationId: "extendReservation",
  description: "The hold extended as `POST /v1.1/orders/{orderId}/hold` does: never after its first ticket stops being sold, nor 120 minutes after the booking was made.",
  request: { params: BookingUuidParamSchema, body: jsonRequestBody(ExtendBodySchema) },
  responses: BookingResponse,
});

export const confirmBooking = createRoute({
  method: "post",
  path: "/bookings/{uuid}/confirm",
  tags: [TAG],
  summary: "Confirm a booking: its tickets are sold",
  operationId: "bookingConfirmation",
  description: "The held order sold, with the buyer's contact (`emailAddress` is required unless the booking has one) and the reseller's reference. Each unit item's ticket then carries its code as a `QRCODE` delivery option. Unit items that differ from the held ones change its lines as it is sold. A hold that ran out is sold while its places are still free.",
  request: { params: BookingUuidParamSchema, body: jsonRequestBody(BookingConfirmationBodySchema) },
  responses: BookingResponse,
});

export const updateBooking = createRoute({
  method: "patch",
  path: "/bookings/{uuid}",
  tags: [TAG],
  summary: "Change a booking's contact, notes, reference; on hold, its unit items, availability or product",
  operationId: "bookingUpdate",
  description: "The contact, notes and reseller reference of a held or confirmed booking; while it is on hold, its unit items, availability or product too, all or nothing (its lines sold again under every rule of a sale).",
  request: { params: BookingUuidParamSchema, body: jsonRequestBody(BookingUpdateBodySchema) },
  responses: BookingResponse,
});

export const cancelBooking = createRoute({
  method: "post",
  path: "/bookings/{uuid}/cancel",
  tags: [TAG],
  summary: "Release a hold, or cancel a confirmed booking with the box office's rules",
  operationId: "bookingCancellation",
  description: "A hold released (nothing refunded), or a confirmed booking cancelled with the box office's rules and refund (while its tickets could still be sold).",
  request: { params: BookingUuidParamSchema, body: { required: false, content: { "application/json": { schema: CancelBodySchema } } } },
  responses: BookingResponse,
});

export const octoBooking = createRoute({
  method: "get",
  path: "/bookings/{uuid}",
  tags: [TAG],
  summary: "One booking",
  operationId: "getBooking",
  description: "A booking of this reseller's; another's, or an unknown uuid, is `INVALID_BOOKING_UUID`.",
  request: { params: BookingUuidParamSchema },
  responses: BookingResponse,
});

export const octoBookings = createRoute({
  method: "get",
  path: "/bookings",
  tags: [TAG],
  summary: "Bookings by reseller reference, supplier reference or date",
  operationId: "getBookings",
  description: "This reseller's bookings by `resellerReference`, by `supplierReference` (the order's code), by `localDate`, or by `localDateStart` and `localDateEnd` (the dates of their tickets, the end not before the start, at most a year apart); one of them is required. By dates, oldest first and at most 1,000 bookings: more is `BAD_REQUEST`, asking for fewer days.",
  request: { query: BookingsQuerySchema },
  responses: { 200: answer(z.array(BookingSchema), "The bookings, oldest first."), ...ERRORS },
});
