// What the museum sells, as OCTO products: general admission (`general`)
// and each active special event (its eventId), each with the one option
// `DEFAULT`, whose units are the ticket categories on sale. Read through the
// hours', events' and categories' services.
import { listCategories } from "../categories/service";
import type { Category } from "../categories/schemas";
import { findEvent, listEvents } from "../events/service";
import type { SpecialEvent } from "../events/schemas";
import { readOpenDays } from "../hours/service";
import type { Db } from "../platform/batch";
import type { MuseumNow } from "../platform/dates";
import { saleWindow } from "../sales/checks";
import { DEFAULT_OPTION_ID, GENERAL_PRODUCT_ID, MAX_UNITS, type Product, type Unit } from "./schemas";

/** A product id read: general admission, or an event (which may not exist). */
export type ProductRef = { kind: "general" } | { kind: "event"; eventId: string };

const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a product id names, or null for one no product can have. */
export function productRefOf(productId: string): ProductRef | null {
  if (productId === GENERAL_PRODUCT_ID) return { kind: "general" };
  return EVENT_ID.test(productId) ? { kind: "event", eventId: productId.toLowerCase() } : null;
}

/** The most events listed as products (events with a date in the year tickets are sold). */
const MAX_EVENT_PRODUCTS = 1_000;

/**
 * The units of a product: the categories on sale, by id. An accompanied
 * category's ticket is sold with one of a category that is not (`accompaniedBy`).
 */
function unitsOf(categories: Category[]): Unit[] {
  const companions = categories.filter((c) => !c.accompanied).map((c) => c.categoryId);
  return categories.map((category) => ({
    id: category.categoryId,
    internalName: category.name,
    reference: null,
    type: category.unitType,
    restrictions: {
      minAge: 0,
      maxAge: 100,
      idRequired: false,
      minQuantity: null,
      maxQuantity: null,
      paxCount: 1,
      accompaniedBy: category.accompanied ? companions : [],
    },
    requiredContactFields: [],
  }));
}

/** The most days tickets are sold on (a year, a leap day included). */
const MAX_SALE_DAYS = 366 + 1;

/**
 * The entry slots' starts (and untimed days' openings) general admission
 * has on the days tickets are sold, in order; none: no timed day. One round trip.
 */
async function generalStartTimes(db: Db, now: MuseumNow): Promise<string[]> {
  const { first, last } = saleWindow(now.today);
  const days = await readOpenDays(db, { from: first, to: last }, { skip: 0, take: MAX_SALE_DAYS, slots: true });
  const starts = new Set(days.flatMap((day) => day.entrySlots ?? [day.plan.timeOpen]));
  return days.some((day) => day.entrySlots) ? [...starts].sort() : [];
}

type ProductFacts = { id: string; name: string; startTimes: string[]; units: Unit[]; timeZone: string };

function productOf({ id, name, startTimes, units, timeZone }: ProductFacts): Product {
  return {
    id,
    internalName: name,
    reference: null,
    locale: "en",
    timeZone,
    allowFreesale: false,
    instantConfirmation: true,
    instantDelivery: true,
    availabilityRequired: true,
    // A product sold by entry slots starts at times; the others are open all their hours.
    availabilityType: startTimes.length > 0 ? "START_TIME" : "OPENING_HOURS",
    deliveryFormats: ["QRCODE"],
    deliveryMethods: ["TICKET"],
    redemptionMethod: "DIGITAL",
    options: [
      {
        id: DEFAULT_OPTION_ID,
        default: true,
        internalName: "Default",
        reference: null,
        availabilityLocalStartTimes: startTimes,
        // The box office takes a ticket back while it could still be sold.
        cancellationCutoff: "0 minutes",
        cancellationCutoffAmount: 0,
        cancellationCutoffUnit: "minute",
        // The sale needs the buyer's e-mail (a held order's confirmation brings it).
        requiredContactFields: ["emailAddress"],
        restrictions: { minUnits: 1, maxUnits: MAX_UNITS },
        units,
      },
    ],
  };
}

const GENERAL_NAME = "General admission";

/** Every product, general admission first, then the events in the order of their next date: three reads at once. */
export async function listProducts(db: Db, now: MuseumNow, timeZone: string): Promise<Product[]> {
  const { first, last } = saleWindow(now.today);
  const [startTimes, categories, events] = await Promise.all([
    generalStartTimes(db, now),
    listCategories(db, false),
    listEvents(db, { startDate: first, endDate: last, limit: MAX_EVENT_PRODUCTS, offset: 0 }),
  ]);
  const units = unitsOf(categories);
  return [
    productOf({ id: GENERAL_PRODUCT_ID, name: GENERAL_NAME, startTimes, units, timeZone }),
    ...events.map((event) => productOf({ id: event.eventId, name: event.name, startTimes: [], units, timeZone })),
  ];
}

/** One product, or null for an unknown one (an event deleted or never made). */
export async function findProduct(db: Db, ref: ProductRef, now: MuseumNow, timeZone: string): Promise<Product | null> {
  if (ref.kind === "general") {
    const [startTimes, categories] = await Promise.all([generalStartTimes(db, now), listCategories(db, false)]);
    return productOf({ id: GENERAL_PRODUCT_ID, name: GENERAL_NAME, startTimes, units: unitsOf(categories), timeZone });
  }
  const [event, categories]: [SpecialEvent | null, Category[]] = await Promise.all([findEvent(db, ref.eventId), listCategories(db, false)]);
  return event && productOf({ id: event.eventId, name: event.name, startTimes: [], units: unitsOf(categories), timeZone });
}
