// The OCTO core operations (docs/octo.md), declared for validation and for
// the document served at /octo/openapi.json.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, jsonRequestBody } from "../http/openapi";
import { AvailabilityCalendarBodySchema, AvailabilityCalendarDaySchema, AvailabilityCheckBodySchema, OctoAvailabilitySchema, OctoErrorSchema, ProductIdParamSchema, ProductSchema, SupplierSchema } from "./schemas";
import { BookingConfirmationBodySchema, BookingReservationBodySchema, BookingSchema, BookingsQuerySchema, BookingUpdateBodySchema, BookingUuidParamSchema, CancelBodySchema, ExtendBodySchema } from "./booking-schemas";

const TAG = "OCTO";

const error = (description: string) => ({ description, content: { "application/json": { schema: OctoErrorSchema } } });

/** What every OCTO operation may answer besides its own. */
const ERRORS = {
  400: error("`BAD_REQUEST`, an `INVALID_…_ID` of the operation, or `UNPROCESSABLE_ENTITY` (a request the museum's rules refuse: sold out, hold ended, …)."),
  401: error("`UNAUTHORIZED`: no API key, or a wrong or revoked one."),
  403: error("`FORBIDDEN`: the key's account may not sell."),
  429: error("`TOO_MANY_REQUESTS`: too many wrong keys from this client; retry after `Retry-After` seconds."),
  500: error("`INTERNAL_SERVER_ERROR`: nothing internal is said; 503 with `Retry-After` when the database is unavailable for a moment."),
};

const BookingResponse = { 200: jsonContent(BookingSchema, "The booking."), ...ERRORS };

export const getSupplier = createRoute({
  method: "get",
  path: "/supplier",
  tags: [TAG],
  summary: "The museum as an OCTO supplier",
  responses: { 200: jsonContent(SupplierSchema, "The supplier."), ...ERRORS },
});

export const getProducts = createRoute({
  method: "get",
  path: "/products",
  tags: [TAG],
  summary: "Products: general admission, then each active special event",
  responses: { 200: jsonContent(z.array(ProductSchema), "Every product."), ...ERRORS },
});

export const getProduct = createRoute({
  method: "get",
  path: "/products/{productId}",
  tags: [TAG],
  summary: "One product",
  request: { params: ProductIdParamSchema },
  responses: { 200: jsonContent(ProductSchema, "The product."), ...ERRORS },
});

export const octoCalendar = createRoute({
  method: "post",
  path: "/availability/calendar",
  tags: [TAG],
  summary: "A product's days: the figures and statuses of GET /v1.1/availability/calendar",
  request: { body: jsonRequestBody(AvailabilityCalendarBodySchema) },
  responses: { 200: jsonContent(z.array(AvailabilityCalendarDaySchema), "One entry per day the product is sold on."), ...ERRORS },
});

export const octoAvailability = createRoute({
  method: "post",
  path: "/availability",
  tags: [TAG],
  summary: "A product's availabilities: its days, or entry slots on timed days",
  request: { body: jsonRequestBody(AvailabilityCheckBodySchema) },
  responses: { 200: jsonContent(z.array(OctoAvailabilitySchema), "The availabilities."), ...ERRORS },
});

export const reserveBooking = createRoute({
  method: "post",
  path: "/bookings",
  tags: [TAG],
  summary: "Put a booking on hold (a held order)",
  request: { body: jsonRequestBody(BookingReservationBodySchema) },
  responses: BookingResponse,
});

export const extendBooking = createRoute({
  method: "post",
  path: "/bookings/{uuid}/extend",
  tags: [TAG],
  summary: "Extend a booking's hold",
  request: { params: BookingUuidParamSchema, body: jsonRequestBody(ExtendBodySchema) },
  responses: BookingResponse,
});

export const confirmBooking = createRoute({
  method: "post",
  path: "/bookings/{uuid}/confirm",
  tags: [TAG],
  summary: "Confirm a booking: its tickets are sold",
  request: { params: BookingUuidParamSchema, body: jsonRequestBody(BookingConfirmationBodySchema) },
  responses: BookingResponse,
});

export const updateBooking = createRoute({
  method: "patch",
  path: "/bookings/{uuid}",
  tags: [TAG],
  summary: "Change a booking's contact, notes, reference; on hold, its unit items, availability or product",
  request: { params: BookingUuidParamSchema, body: jsonRequestBody(BookingUpdateBodySchema) },
  responses: BookingResponse,
});

export const cancelBooking = createRoute({
  method: "post",
  path: "/bookings/{uuid}/cancel",
  tags: [TAG],
  summary: "Release a hold, or cancel a confirmed booking with the box office's rules",
  request: { params: BookingUuidParamSchema, body: { required: false, content: { "application/json": { schema: CancelBodySchema } } } },
  responses: BookingResponse,
});

export const octoBooking = createRoute({
  method: "get",
  path: "/bookings/{uuid}",
  tags: [TAG],
  summary: "One booking",
  request: { params: BookingUuidParamSchema },
  responses: BookingResponse,
});

export const octoBookings = createRoute({
  method: "get",
  path: "/bookings",
  tags: [TAG],
  summary: "Bookings by reseller reference, supplier reference or date",
  request: { query: BookingsQuerySchema },
  responses: { 200: jsonContent(z.array(BookingSchema), "The bookings, oldest first."), ...ERRORS },
});
