// OCTO bookings as the museum's orders: each operation translates the
// request into the sales and box-office services (the one sale path, holds,
// cancellation), which decide every rule, and answers with the order's
// record as a booking, read in the same batch as the write.
//
// A booking's uuid is its order's id: the reseller's uuid (or one made for
// it) is the id the order is made with, so every later operation addresses
// the order directly.
import type { Principal } from "../env";
import { cancelOrderAtBoxOffice } from "../box-office/cancellation";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import type { Batch, Db } from "../platform/batch";
import type { IsoDate, MuseumNow } from "../platform/dates";
import { confirmHeldOrder, extendHeldOrder } from "../sales/holds";
import { addOrderRecordReads, changeOrderDetails, isHeldOrderLackingEmail, type OrderRecord, orderRecords } from "../sales/orders";
import { OrderIdTaken, OrderNotHeld } from "../sales/order-write";
import { type SaleContext, type SaleRequest, sell } from "../sales/sell";
import { MAX_HOLD_MINUTES } from "../sales/schemas";
import type { BuyerDetails, OrderSelector } from "../sales/statements";
import type { TicketLine } from "../tickets/schemas";
import type { CodeSigner } from "../ticket-image";
import { checkRange, parseAvailabilityId } from "./availability";
import { bookingOf } from "./bookings-map";
import { invalidAvailability, invalidBooking, invalidOption, invalidProduct, invalidUnit, OctoError, unprocessable } from "./errors";
import { productRefOf } from "./products";
import { DEFAULT_OPTION_ID } from "./schemas";
import { type Booking, type BookingConfirmationBody, type BookingReservationBody, type BookingsQuery, type BookingUpdateBody, type ContactBody } from "./booking-schemas";

/** Who books, and what every booking operation needs of the Worker. */
export type OctoContext = {
  db: Db;
  primaryDb: () => Db;
  principal: Principal;
  museumNow: MuseumNow;
  timeZone: string;
  currency: string;
  /** The signer of sold tickets' codes. */
  signer: CodeSigner;
  /** The sale's context (its checks that keys and prices are configured made). */
  sale: SaleContext;
};

/** How long a hold lasts when the reseller does not say (minutes). */
const DEFAULT_HOLD_MINUTES = 30;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The order id a booking uuid names (lower case); anything else is `INVALID_BOOKING_UUID`. */
function orderIdOf(uuid: string): string {
  const id = uuid.toLowerCase();
  if (!UUID.test(id)) throw invalidBooking(uuid);
  return id;
}

function mapRecord(context: OctoContext, record: OrderRecord): Promise<Booking> {
  return bookingOf(record, { timeZone: context.timeZone, signer: context.signer });
}

/** Reads for an answer: the record of the order `orderId`, added to a batch (one read handle, set again if the batch is built again). */
function recordReader(context: OctoContext, orderId: string) {
  let read: (() => OrderRecord[]) | undefined;
  return {
    also: (batch: Batch) => {
      read = addOrderRecordReads(batch, { orderId }, context.principal.name, context.museumNow);
    },
    booking: async () => {
      const record = read?.()[0];
      if (!record) throw invalidBooking(orderId);
      return mapRecord(context, record);
    },
  };
}

/** The one booking `orderId` of this reseller, or `INVALID_BOOKING_UUID`. One round trip. */
async function bookingNamed(context: OctoContext, orderId: string): Promise<Booking> {
  const [record] = await orderRecords(context.db, { orderId }, context.principal, context.museumNow);
  if (!record) throw invalidBooking(orderId);
  return mapRecord(context, record);
}

/** What the buyer's contact says for the order: the e-mail and phone its tickets carry, and the rest. */
function contactParts(contact: ContactBody | undefined): { email?: string; phone?: string; buyer?: BuyerDetails } {
  if (!contact) return {};
  const { emailAddress, phoneNumber, ...rest } = contact;
  return {
    ...(emailAddress ? { email: emailAddress } : {}),
    ...(phoneNumber ? { phone: phoneNumber } : {}),
    buyer: rest,
  };
}

/** What a request names to sell: a product, its option, an availability and units. */
type Selection = { productId: string; optionId: string; availabilityId: string; unitIds: string[] };

const CATEGORY_ID = /^[a-z0-9-]{1,20}$/;

/**
 * The order lines of a selection: one ticket per unit item, on the
 * availability's day; a general ticket at the availability's start time
 * (its slot on a timed day, the day itself when it is the opening of an
 * untimed one: the sale's own conditions decide, in its one batch).
 */
function linesOf(selection: Selection, timeZone: string): TicketLine[] {
  const product = productRefOf(selection.productId);
  if (!product) throw invalidProduct(selection.productId);
  if (selection.optionId !== DEFAULT_OPTION_ID) throw invalidOption(selection.optionId);
  const point = parseAvailabilityId(timeZone, selection.availabilityId);
  if (!point) throw invalidAvailability(selection.availabilityId, "it is not a local date-time of the museum's (YYYY-MM-DDTHH:mm:00 with its UTC offset)");
  if (product.kind === "event" && point.time !== "00:00") {
    throw invalidAvailability(selection.availabilityId, "an event's availability starts at its day's start (00:00)");
  }
  const badUnit = selection.unitIds.find((unitId) => !CATEGORY_ID.test(unitId));
  if (badUnit !== undefined) throw invalidUnit(badUnit);
  return selection.unitIds.map((category): TicketLine =>
    product.kind === "event"
      ? { ticketType: "event", ticketDate: point.date, eventId: product.eventId, category }
      : { ticketType: "general", ticketDate: point.date, startTime: point.time, category },
  );
}

/** A refused sale in OCTO's terms: a unit not on sale, an availability that is not one, an unknown event; the rest as the app says it. */
function saleRefusal(error: unknown, selection: Selection): unknown {
  if (!(error instanceof ProblemError)) return error;
  const { problem } = error;
  const line = problem.errors?.find((e) => /^tickets\[\d+\]\./.test(e.path));
  if (line) {
    const index = Number(/^tickets\[(\d+)\]/.exec(line.path)![1]);
    if (line.path.endsWith(".category")) return invalidUnit(selection.unitIds[index] ?? "");
    if ([".ticketDate", ".entryTime", ".startTime"].some((field) => line.path.endsWith(field))) {
      return invalidAvailability(selection.availabilityId, line.message);
    }
  }
  if (error.status === 404) return invalidProduct(selection.productId);
  if (problem.type === PROBLEM_TYPES.accompanimentRequired) return unprocessable(problem.detail);
  return error;
}

/** Sells `request` for the booking `orderId` and answers with the booking as written (one batch), or OCTO's error. */
async function sellBooking(context: OctoContext, orderId: string, selection: Selection, request: Omit<SaleRequest, "also">): Promise<Booking> {
  const answer = recordReader(context, orderId);
  try {
    await sell(context.db, { ...request, also: answer.also }, context.sale, { of: () => null });
  } catch (error) {
    if (error instanceof OrderNotHeld) throw unprocessable("Only a booking on hold can change its unit items, date or product; this one is not (or its hold ran out).");
    throw saleRefusal(error, selection);
  }
  return answer.booking();
}

/**
 * `POST /bookings`: a held order of one ticket per unit item. The same
 * uuid again answers the booking as it stands and makes nothing.
 */
export async function reserve(context: OctoContext, body: BookingReservationBody): Promise<Booking> {
  const selection = { productId: body.productId, optionId: body.optionId, availabilityId: body.availabilityId, unitIds: body.unitItems.map((item) => item.unitId) };
  const orderId = body.uuid ?? crypto.randomUUID();
  const lines = linesOf(selection, context.timeZone);
  const { email, phone, buyer } = contactParts(body.contact);
  try {
    return await sellBooking(context, orderId, selection, {
      lines,
      email,
      phone,
      reference: body.resellerReference,
      buyer,
      notes: body.notes ?? undefined,
      holdMinutes: body.expirationMinutes ?? DEFAULT_HOLD_MINUTES,
      orderId,
      addressing: "tickets",
      body,
    });
  } catch (error) {
    // A uuid sent again: this reseller's booking as it stands; another's uuid is not its to use.
    if (error instanceof OrderIdTaken) return bookingNamed(context, orderId);
    throw error;
  }
}

/** `POST /bookings/{uuid}/extend`: the hold extended (as `POST /orders/{orderId}/hold`). */
export async function extend(context: OctoContext, uuid: string, minutes: number | undefined): Promise<Booking> {
  const orderId = orderIdOf(uuid);
  const answer = recordReader(context, orderId);
  await rephrased(
    () => extendHeldOrder(context.db, orderId, minutes ?? DEFAULT_HOLD_MINUTES, { ...holdContextOf(context), also: answer.also }),
    uuid,
  );
  return answer.booking();
}

function holdContextOf(context: OctoContext) {
  return { principal: context.principal, museumNow: context.museumNow, currency: context.currency, primaryDb: context.primaryDb };
}

/** The service's "no such order" (unknown, or another seller's) as OCTO's invalid uuid; anything else as it is. */
async function rephrased<T>(run: () => Promise<T>, uuid: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProblemError && error.status === 404) throw invalidBooking(uuid);
    throw error;
  }
}

/**
 * `POST /bookings/{uuid}/confirm`: the held order sold, with the buyer's
 * contact and the reseller's reference (as the order's `reference`). Unit
 * items that differ from the held ones change its lines as it is sold (one batch).
 */
export async function confirm(context: OctoContext, uuid: string, body: BookingConfirmationBody): Promise<Booking> {
  const orderId = orderIdOf(uuid);
  const { email, phone, buyer } = contactParts(body.contact);
  const details = { reference: body.resellerReference, buyer };
  try {
    if (body.unitItems) {
      const current = await bookingNamed(context, orderId);
      const unitIds = body.unitItems.map((item) => item.unitId);
      if (current.status === "ON_HOLD" && unitIds.join() !== current.unitItems.map((item) => item.unitId).join()) {
        const selection = { productId: current.productId, optionId: current.optionId, availabilityId: current.availabilityId ?? "", unitIds };
        // Without an e-mail, the new lines keep the buyer's contact as the sale's batch finds it.
        return await sellBooking(context, orderId, selection, {
          lines: linesOf(selection, context.timeZone),
          email,
          phone: email ? phone : undefined,
          ...details,
          orderId,
          relining: { whileLive: false },
          addressing: "tickets",
          body,
        });
      }
    }
    const answer = recordReader(context, orderId);
    await rephrased(() => confirmHeldOrder(context.db, orderId, { email, phone }, { ...holdContextOf(context), details, also: answer.also }), uuid);
    return await answer.booking();
  } catch (error) {
    if (isHeldOrderLackingEmail(error)) throw new OctoError("BAD_REQUEST", "contact.emailAddress: Required: this booking has no buyer's e-mail yet.");
    throw error;
  }
}

/**
 * `PATCH /bookings/{uuid}`: the contact, notes and reseller reference of a
 * held or confirmed booking; a held one's unit items, availability or
 * product too (its lines change: all or nothing, as a new sale of them).
 */
export async function update(context: OctoContext, uuid: string, body: BookingUpdateBody): Promise<Booking> {
  const orderId = orderIdOf(uuid);
  const { email, phone, buyer } = contactParts(body.contact);
  const details = {
    ...(body.resellerReference === undefined ? {} : { reference: body.resellerReference }),
    ...(buyer === undefined ? {} : { buyer }),
    ...(body.notes === undefined ? {} : { notes: body.notes }),
  };
  const linesChange = body.productId !== undefined || body.optionId !== undefined || body.availabilityId !== undefined || body.unitItems !== undefined;
  if (!linesChange) {
    const record = await changeOrderDetails(context, orderId, context.principal, { details, ...(email ? { email, phone } : {}) }, context.museumNow);
    if (!record) throw invalidBooking(uuid);
    if (body.expirationMinutes !== undefined && record.order.status === "held") return extend(context, uuid, body.expirationMinutes);
    return mapRecord(context, record);
  }
  const current = await bookingNamed(context, orderId);
  if (current.status !== "ON_HOLD") throw unprocessable("Only a booking on hold can change its unit items, date or product.");
  const productChanges = body.productId !== undefined && body.productId !== current.productId;
  if (productChanges && body.availabilityId === undefined) throw new OctoError("BAD_REQUEST", "availabilityId: Required when the product changes.");
  const selection = {
    productId: body.productId ?? current.productId,
    optionId: body.optionId ?? current.optionId,
    availabilityId: body.availabilityId ?? current.availabilityId ?? "",
    unitIds: body.unitItems?.map((item) => item.unitId) ?? current.unitItems.map((item) => item.unitId),
  };
  const lines = linesOf(selection, context.timeZone);
  // The hold keeps its end unless the reseller asks for another; the new
  // lines keep the buyer's contact as it stands when they are written, unless
  // this change brings one.
  return sellBooking(context, orderId, selection, {
    lines,
    email,
    phone: email ? phone : undefined,
    reference: details.reference ?? undefined,
    buyer: buyer ?? undefined,
    notes: details.notes ?? undefined,
    holdMinutes: body.expirationMinutes ?? MAX_HOLD_MINUTES,
    orderId,
    relining: { whileLive: true, keepHoldEnd: body.expirationMinutes === undefined },
    addressing: "tickets",
    body,
  });
}

/** `POST /bookings/{uuid}/cancel`: a hold released, or a confirmed booking cancelled with the box office's rules and refund. */
export async function cancel(context: OctoContext, uuid: string, reason: string | undefined): Promise<Booking> {
  const orderId = orderIdOf(uuid);
  const answer = recordReader(context, orderId);
  await rephrased(
    () =>
      cancelOrderAtBoxOffice(context.db, orderId, {
        principal: context.principal,
        museumNow: context.museumNow,
        currency: context.currency,
        ...(reason === undefined ? {} : { reason }),
        also: answer.also,
      }),
    uuid,
  );
  return answer.booking();
}

/** `GET /bookings/{uuid}`. */
export function bookingByUuid(context: OctoContext, uuid: string): Promise<Booking> {
  return bookingNamed(context, orderIdOf(uuid));
}

/**
 * The most bookings one answer by dates lists (OCTO has no pages): each is
 * read with its tickets and each sold ticket's code signed, so an answer's
 * work stays bounded. More is a 400 that asks for fewer days.
 */
const MAX_BOOKINGS_BY_DATES = 1_000;

/** `GET /bookings`: this reseller's bookings by its reference, the supplier's reference (the order's code) or a date of their tickets. */
export async function bookingsListed(context: OctoContext, query: BookingsQuery): Promise<Booking[]> {
  const ticketDates = (from: IsoDate, to: IsoDate): OrderSelector => {
    checkRange(from, to, "bookings");
    return { ticketDates: { from, to }, first: MAX_BOOKINGS_BY_DATES + 1 };
  };
  const selector: OrderSelector | null =
    query.resellerReference !== undefined ? { reference: query.resellerReference }
    : query.supplierReference !== undefined ? { confirmationCode: query.supplierReference.toLowerCase() }
    : query.localDate !== undefined ? ticketDates(query.localDate, query.localDate)
    : query.localDateStart !== undefined && query.localDateEnd !== undefined ? ticketDates(query.localDateStart, query.localDateEnd)
    : null;
  if (!selector) {
    throw new OctoError("BAD_REQUEST", "Give resellerReference, supplierReference, localDate, or localDateStart and localDateEnd.");
  }
  const records = await orderRecords(context.db, selector, context.principal, context.museumNow);
  if (records.length > MAX_BOOKINGS_BY_DATES) {
    throw new OctoError("BAD_REQUEST", `More than ${MAX_BOOKINGS_BY_DATES.toLocaleString("en-US")} bookings have tickets on these dates: ask for fewer days.`);
  }
  return Promise.all(records.map((record) => mapRecord(context, record)));
}
