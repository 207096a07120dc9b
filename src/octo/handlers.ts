import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { AppRouteHandler } from "../http/types";
import { saleContextOf } from "../sales/context";
import { availabilitiesAsked, calendarAsked } from "./availability";
import * as bookings from "./bookings";
import { invalidProduct } from "./errors";
import { findProduct, listProducts, productRefOf } from "./products";
import type * as routes from "./routes";

/** The museum's name to resellers: the service's own. */
const SUPPLIER_NAME = "Museum";

function bookingContextOf(c: Context<AppEnv>): bookings.OctoContext {
  // The sale's context checks first that codes can be signed and prices shown (503 otherwise).
  const sale = saleContextOf(c, { operation: "createOrder", key: undefined });
  return {
    db: c.var.db,
    primaryDb: c.var.primaryDb,
    principal: c.var.principal,
    museumNow: sale.museumNow,
    timeZone: c.var.config.settings.MUSEUM_TIMEZONE,
    currency: sale.currency,
    signer: sale.signer,
    sale,
  };
}

const availabilityContextOf = (c: Context<AppEnv>) => ({ db: c.var.db, now: c.var.config.museumNow(), timeZone: c.var.config.settings.MUSEUM_TIMEZONE });

/** A booking answer: never kept by a shared cache (it carries the buyer's contact). */
function bookingAnswer<T>(c: Context<AppEnv>, body: T) {
  c.header("Cache-Control", "no-store");
  return body;
}

export const getSupplier: AppRouteHandler<typeof routes.getSupplier> = (c) => {
  const origin = new URL(c.req.url).origin;
  return c.json({ id: "museum", name: SUPPLIER_NAME, endpoint: `${origin}/octo`, contact: { website: origin, email: null, telephone: null, address: null } }, 200);
};

export const getProducts: AppRouteHandler<typeof routes.getProducts> = async (c) =>
  c.json(await listProducts(c.var.db, c.var.config.museumNow(), c.var.config.settings.MUSEUM_TIMEZONE), 200);

export const getProduct: AppRouteHandler<typeof routes.getProduct> = async (c) => {
  const { productId } = c.req.valid("param");
  const ref = productRefOf(productId);
  const product = ref && (await findProduct(c.var.db, ref, c.var.config.museumNow(), c.var.config.settings.MUSEUM_TIMEZONE));
  if (!product) throw invalidProduct(productId);
  return c.json(product, 200);
};

export const octoCalendar: AppRouteHandler<typeof routes.octoCalendar> = async (c) => {
  c.header("Cache-Control", "no-store");
  return c.json(await calendarAsked(availabilityContextOf(c), c.req.valid("json")), 200);
};

export const octoAvailability: AppRouteHandler<typeof routes.octoAvailability> = async (c) => {
  c.header("Cache-Control", "no-store");
  return c.json(await availabilitiesAsked(availabilityContextOf(c), c.req.valid("json")), 200);
};

export const reserveBooking: AppRouteHandler<typeof routes.reserveBooking> = async (c) =>
  c.json(bookingAnswer(c, await bookings.reserve(bookingContextOf(c), c.req.valid("json"))), 200);

export const extendBooking: AppRouteHandler<typeof routes.extendBooking> = async (c) =>
  c.json(bookingAnswer(c, await bookings.extend(bookingContextOf(c), c.req.valid("param").uuid, c.req.valid("json").expirationMinutes)), 200);

export const confirmBooking: AppRouteHandler<typeof routes.confirmBooking> = async (c) =>
  c.json(bookingAnswer(c, await bookings.confirm(bookingContextOf(c), c.req.valid("param").uuid, c.req.valid("json"))), 200);

export const updateBooking: AppRouteHandler<typeof routes.updateBooking> = async (c) =>
  c.json(bookingAnswer(c, await bookings.update(bookingContextOf(c), c.req.valid("param").uuid, c.req.valid("json"))), 200);

export const cancelBooking: AppRouteHandler<typeof routes.cancelBooking> = async (c) => {
  const reason = c.req.valid("json")?.reason ?? undefined;
  return c.json(bookingAnswer(c, await bookings.cancel(bookingContextOf(c), c.req.valid("param").uuid, reason)), 200);
};

export const octoBooking: AppRouteHandler<typeof routes.octoBooking> = async (c) =>
  c.json(bookingAnswer(c, await bookings.bookingByUuid(bookingContextOf(c), c.req.valid("param").uuid)), 200);

export const octoBookings: AppRouteHandler<typeof routes.octoBookings> = async (c) =>
  c.json(bookingAnswer(c, await bookings.bookingsListed(bookingContextOf(c), c.req.valid("query"))), 200);
