// The museum's days, slots and events as OCTO availabilities: the same
// figures and statuses `GET /availability` and its calendar answer
// (sales/availability.ts, one read of the days), in OCTO's shapes.
//
// An availability's id is the local date-time (with the museum's offset) of
// the day's opening, of an entry slot's start, or, for an event (sold all
// day), of its day's start.
import { findEvent } from "../events/service";
import type { DayPlan } from "../hours/calendar";
import type { Db } from "../platform/batch";
import { addDays, type IsoDate, type MuseumNow, utcSeconds, zonedDateTime } from "../platform/dates";
import { type DaySales, type EntrySlot, salesOver } from "../sales/availability";
import { saleWindow } from "../sales/checks";
import type { SaleStatus } from "../sales/schemas";
import { invalidAvailability, invalidOption, invalidProduct, OctoError } from "./errors";
import { productRefOf, type ProductRef } from "./products";
import { type OctoAvailability, type AvailabilityCalendarDay, type AvailabilityCheckBody, type AvailabilityStatus, DEFAULT_OPTION_ID, MAX_UNITS } from "./schemas";

/** Where an availability is: its day, and its start (`HH:mm`). */
export type AvailabilityPoint = { date: IsoDate; time: string };

const START_OF_DAY = "00:00";
/** An event's day, as opening hours: all of it. */
const WHOLE_DAY = [{ from: "00:00", to: "23:59" }];

/** The availability id of a point: the local date-time with the museum's offset. */
export function availabilityIdOf(timeZone: string, point: AvailabilityPoint): string {
  return zonedDateTime(timeZone, point.date, point.time).iso;
}

const AVAILABILITY_ID = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):00(?:\.0+)?(Z|[+-]\d{2}:\d{2})$/;

/** The point an availability id names, or null for one that is not a local date-time of the museum's (its offset included). */
export function parseAvailabilityId(timeZone: string, id: string): AvailabilityPoint | null {
  const match = AVAILABILITY_ID.exec(id);
  if (!match) return null;
  const [, date, time, offset] = match as unknown as [string, IsoDate, string, string];
  if (Number.isNaN(Date.parse(`${date}T${time}:00Z`))) return null;
  const expected = availabilityIdOf(timeZone, { date, time });
  return expected === `${date}T${time}:00${offset === "Z" ? "+00:00" : offset}` ? { date, time } : null;
}

/** OCTO's status of a product, a day or a slot: the service's, and `FREESALE` for what has no limit. */
function octoStatus(status: SaleStatus, available: number | null): AvailabilityStatus {
  switch (status) {
    case "closed":
      return "CLOSED";
    case "sold-out":
      return "SOLD_OUT";
    case "limited":
      return "LIMITED";
    case "available":
      return available === null ? "FREESALE" : "AVAILABLE";
  }
}

const isAvailable = (status: AvailabilityStatus) => status === "AVAILABLE" || status === "LIMITED" || status === "FREESALE";

type Window = { start: AvailabilityPoint; end: AvailabilityPoint; allDay: boolean; openingHours: { from: string; to: string }[] };

function availabilityOf(
  timeZone: string,
  window: Window,
  figures: { status: SaleStatus; available: number | null; capacity: number | null },
): OctoAvailability {
  const status = octoStatus(figures.status, figures.available);
  const end = zonedDateTime(timeZone, window.end.date, window.end.time);
  return {
    id: availabilityIdOf(timeZone, window.start),
    localDateTimeStart: availabilityIdOf(timeZone, window.start),
    localDateTimeEnd: end.iso,
    allDay: window.allDay,
    available: isAvailable(status),
    status,
    vacancies: figures.available,
    capacity: figures.capacity,
    maxUnits: MAX_UNITS,
    // Sales stop at the end: the slot's, the day's closing, an event's midnight.
    utcCutoffAt: utcSeconds(end.utc),
    openingHours: window.openingHours,
  };
}

const hoursOf = (plan: DayPlan) => [{ from: plan.timeOpen, to: plan.timeClose }];

/** The window of a general ticket's day: on a timed day its slot (`HH:mm` start and end), else the whole opening. */
export function generalWindow(date: IsoDate, plan: DayPlan, slot: { start: string; end: string } | null): Window {
  return slot === null
    ? { start: { date, time: plan.timeOpen }, end: { date, time: plan.timeClose }, allDay: true, openingHours: hoursOf(plan) }
    : { start: { date, time: slot.start }, end: { date, time: slot.end }, allDay: false, openingHours: hoursOf(plan) };
}

/** The window of an event's day: all of it (events have no times; their tickets are sold all day). */
export function eventWindow(date: IsoDate): Window {
  return { start: { date, time: START_OF_DAY }, end: { date: addDays(date, 1), time: START_OF_DAY }, allDay: true, openingHours: WHOLE_DAY };
}

/**
 * General admission's availabilities of a day: one per entry slot on a
 * timed day, else one for the whole opening; none on a closed day.
 */
function generalAvailabilities(timeZone: string, day: DaySales): OctoAvailability[] {
  const { plan, availability, statuses, slotStatuses, slotEnds } = day;
  if (plan === null) return [];
  const slots: EntrySlot[] = availability.general.entrySlots ?? [];
  if (slots.length === 0) {
    return [
      availabilityOf(timeZone, generalWindow(availability.date, plan, null), {
        status: statuses.general.status,
        available: availability.general.available,
        capacity: availability.general.capacity,
      }),
    ];
  }
  return slots.map((slot, i) =>
    availabilityOf(timeZone, generalWindow(availability.date, plan, { start: slot.entryTime, end: slotEnds[i]! }), {
      status: slotStatuses[i]!,
      available: slot.available,
      capacity: slot.capacity,
    }),
  );
}

/** An event's availability on a day (null: it does not take place that day). */
function eventAvailability(timeZone: string, day: DaySales, eventId: string): OctoAvailability | null {
  const event = day.statuses.events.find((e) => e.eventId === eventId);
  if (!event) return null;
  return availabilityOf(timeZone, eventWindow(day.availability.date), event);
}

/** A calendar day of general admission (null: the museum is closed). */
function generalCalendarDay(day: DaySales): AvailabilityCalendarDay | null {
  if (day.plan === null) return null;
  const { status, available, capacity } = day.statuses.general;
  const octo = octoStatus(status, available);
  return { localDate: day.availability.date, available: isAvailable(octo), status: octo, vacancies: available, capacity, openingHours: hoursOf(day.plan) };
}

/** A calendar day of an event (null: it does not take place that day). */
function eventCalendarDay(day: DaySales, eventId: string): AvailabilityCalendarDay | null {
  const event = day.statuses.events.find((e) => e.eventId === eventId);
  if (!event) return null;
  const octo = octoStatus(event.status, event.available);
  return {
    localDate: day.availability.date,
    available: isAvailable(octo),
    status: octo,
    vacancies: event.available,
    capacity: event.capacity,
    openingHours: WHOLE_DAY,
  };
}

/** What a check or a calendar asks of the availability service. */
export type AvailabilityContext = { db: Db; now: MuseumNow; timeZone: string };

/** The days of [from, to] tickets are sold on (from today to the last day sold), or null when none are. */
function daysOnSale(from: IsoDate, to: IsoDate, now: MuseumNow): { from: IsoDate; to: IsoDate } | null {
  const window = saleWindow(now.today);
  const first = from < window.first ? window.first : from;
  const last = to > window.last ? window.last : to;
  return first <= last ? { from: first, to: last } : null;
}

/** The longest range a request may ask for: OCTO's year. */
const MAX_RANGE_DAYS = 366;

/** 400 for a range of a request's `localDateStart` and `localDateEnd` that ends before it starts or spans more than a year (of `what`). */
export function checkRange(from: IsoDate, to: IsoDate, what: "availability" | "bookings"): void {
  if (to < from) throw new OctoError("BAD_REQUEST", "localDateEnd: Must not be before localDateStart.");
  if (to > addDays(from, MAX_RANGE_DAYS)) throw new OctoError("BAD_REQUEST", `localDateEnd: cannot request more than 1 year of ${what}.`);
}

/** The product and option a request names, checked: general admission or an event (whose existence the days tell). */
function productAsked(productId: string, optionId: string): ProductRef {
  const product = productRefOf(productId);
  if (!product) throw invalidProduct(productId);
  if (optionId !== DEFAULT_OPTION_ID) throw invalidOption(optionId);
  return product;
}

/** An event named by no day read: unknown (`INVALID_PRODUCT_ID`), or without a date in the range (one more round trip, only then). */
async function checkEventKnown(context: AvailabilityContext, product: ProductRef, days: DaySales[], productId: string): Promise<void> {
  if (product.kind !== "event" || days.some((day) => day.statuses.events.some((e) => e.eventId === product.eventId))) return;
  if (!(await findEvent(context.db, product.eventId))) throw invalidProduct(productId);
}

/** The availabilities of a product on the days read. */
function availabilitiesOf(context: AvailabilityContext, product: ProductRef, days: DaySales[]): OctoAvailability[] {
  return days.flatMap((day) => {
    if (product.kind === "general") return generalAvailabilities(context.timeZone, day);
    const event = eventAvailability(context.timeZone, day, product.eventId);
    return event ? [event] : [];
  });
}

/**
 * `POST /availability`: a product's availabilities over a range of days,
 * or those of `availabilityIds`. One round trip (+1 for an event that no day names).
 */
export async function availabilitiesAsked(context: AvailabilityContext, body: AvailabilityCheckBody): Promise<OctoAvailability[]> {
  const product = productAsked(body.productId, body.optionId);
  let from: IsoDate;
  let to: IsoDate;
  let wanted: Set<string> | null = null;
  if (body.availabilityIds) {
    const points = body.availabilityIds.map((id) => parseAvailabilityId(context.timeZone, id));
    const bad = points.findIndex((point) => point === null);
    if (bad >= 0) throw invalidAvailability(body.availabilityIds[bad]!, "it is not a local date-time of the museum's");
    const dates = points.map((point) => point!.date).sort();
    [from, to] = [dates[0]!, dates.at(-1)!];
    wanted = new Set(points.map((point) => availabilityIdOf(context.timeZone, point!)));
  } else {
    [from, to] = [body.localDateStart!, body.localDateEnd!];
    checkRange(from, to, "availability");
  }
  const range = daysOnSale(from, to, context.now);
  const days = range ? await salesOver(context.db, range.from, range.to, context.now) : [];
  await checkEventKnown(context, product, days, body.productId);
  const availabilities = availabilitiesOf(context, product, days);
  return wanted ? availabilities.filter((a) => wanted.has(a.id)) : availabilities;
}

/** `POST /availability/calendar`: a product's days over a range, one entry per day it is sold on. One round trip (+1 as above). */
export async function calendarAsked(
  context: AvailabilityContext,
  body: { productId: string; optionId: string; localDateStart: IsoDate; localDateEnd: IsoDate },
): Promise<AvailabilityCalendarDay[]> {
  const product = productAsked(body.productId, body.optionId);
  checkRange(body.localDateStart, body.localDateEnd, "availability");
  const range = daysOnSale(body.localDateStart, body.localDateEnd, context.now);
  const days = range ? await salesOver(context.db, range.from, range.to, context.now) : [];
  await checkEventKnown(context, product, days, body.productId);
  return days.flatMap((day) => {
    const entry = product.kind === "general" ? generalCalendarDay(day) : eventCalendarDay(day, product.eventId);
    return entry ? [entry] : [];
  });
}
