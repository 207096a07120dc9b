// What is left to sell on a day, or on each day of a range (docs/capacity.md):
// read in one round trip, for kiosks (GET /availability), web shops
// (GET /availability/calendar) and a refused sale's answer. Every day is read
// by the one statement and computed by the one function, whatever the range.
import sql, { raw } from "sql-template-tag";
import { type CategoryPrice, categoriesOnSale } from "../categories/statements";
import { type EventOfDay, eventsOn, parseEventsOn } from "../events/statements";
import { type DayPlan, minutesOf, PUBLISHED_DAYS_AHEAD, slotEnd, slotStarts } from "../hours/calendar";
import { dayPlanOn, parsePlan } from "../hours/statements";
import { type Batch, type Db, read, runStep, type Step, step } from "../platform/batch";
import { validationProblem } from "../http/errors";
import { addDays, type IsoDate, type MuseumNow } from "../platform/dates";
import { amountOf } from "../platform/money";
import type { Availability, AvailabilityCalendar, SaleStatus } from "./schemas";
import { parsePlacesTaken, type PlacesTaken, placesTakenOn } from "../tickets/statements";

export type EntrySlot = { entryTime: string; capacity: number; taken: number; available: number };

/** What the sale rules need to know of a day: its plan, the places taken, its active events, the categories on sale. */
export type DayState = { date: IsoDate; plan: DayPlan | null; places: PlacesTaken; events: EventOfDay[]; categories: CategoryPrice[] };

const DAY = raw("days.day");

/** The state of each date in [from, to], in order: one statement, however long the range. */
function selectDayStates(db: Db, from: IsoDate, to: IsoDate): Step<DayState[]> {
  return step(
    db,
    sql`WITH RECURSIVE days(day) AS (SELECT ${from} UNION ALL SELECT date(day, '+1 day') FROM days WHERE day < ${to})
        SELECT day, ${dayPlanOn(DAY)} AS plan, ${placesTakenOn(DAY)} AS places, ${eventsOn(DAY)} AS events,
               ${categoriesOnSale} AS categories
          FROM days ORDER BY day`,
    (result) => {
      const rows = read.rows<{ day: IsoDate; plan: string | null; places: string; events: string; categories: string }>()(result);
      // The same categories on every day: parsed once.
      const categories = rows.length > 0 ? (JSON.parse(rows[0]!.categories) as CategoryPrice[]) : [];
      return rows.map((row) => ({
        date: row.day,
        plan: parsePlan(row.plan),
        places: parsePlacesTaken(row.places),
        events: parseEventsOn(row.events),
        categories,
      }));
    },
  );
}

/** Adds the read of a day's state to a batch; the state, once it has run. */
export function addDayStateRead(batch: Batch, date: IsoDate): () => DayState {
  const states = batch.add(selectDayStates(batch.db, date, date));
  return () => states.value[0]!;
}

/** True while general tickets for `date` are still sold: the day is open and, for today, not yet closed. */
function generalSalesOpen(plan: DayPlan | null, date: IsoDate, now: MuseumNow): plan is DayPlan {
  return plan !== null && (date > now.today || now.time < plan.timeClose);
}

/** True while the slot starting at `entryTime` is sold: it has not ended (today) or is on a later day. */
function slotOpen(plan: DayPlan, entryTime: string, date: IsoDate, now: MuseumNow): boolean {
  return date > now.today || now.time < slotEnd(plan, entryTime);
}

/** The room left under a limit (null: no limit). */
const room = (capacity: number | undefined, taken: number) =>
  capacity === undefined ? null : Math.max(0, capacity - taken);

/** The day's general places, and each slot's on a timed day. */
export function generalAvailability(state: DayState, now: MuseumNow): Omit<Availability["general"], "prices"> {
  const { plan, places, date } = state;
  const salesOpen = generalSalesOpen(plan, date, now);
  const dayRoom = salesOpen ? room(plan.capacity, places.day) : 0;
  const general = { capacity: plan?.capacity ?? null, taken: places.day };
  if (!plan || plan.entrySlotMinutes === undefined) return { ...general, available: dayRoom };
  const entrySlots: EntrySlot[] = slotStarts(plan).map((entryTime) => {
    const taken = places.slots.get(entryTime) ?? 0;
    const own = salesOpen && slotOpen(plan, entryTime, date, now) ? room(plan.slotCapacity, taken)! : 0;
    return { entryTime, capacity: plan.slotCapacity!, taken, available: Math.min(own, dayRoom ?? own) };
  });
  const slotsRoom = entrySlots.reduce((sum, slot) => sum + slot.available, 0);
  return { ...general, available: Math.min(slotsRoom, dayRoom ?? slotsRoom), entrySlots };
}

/** The prices of the categories on sale (by id), each `priceOf` its category, as the API shows them. */
function pricesOf(categories: CategoryPrice[], priceOf: (category: CategoryPrice) => number) {
  return categories.map((c) => ({ category: c.category, name: c.name, price: amountOf(priceOf(c)) }));
}

/** A day's availability: general places (per slot on a timed day) and each active event's, with their prices per category. */
function availabilityOf(state: DayState, now: MuseumNow): Availability {
  return {
    date: state.date,
    open: state.plan !== null,
    general: { ...generalAvailability(state, now), prices: pricesOf(state.categories, (c) => c.priceCents) },
    events: state.events.map((event) => {
      const taken = state.places.events.get(event.eventId) ?? 0;
      return {
        eventId: event.eventId,
        name: event.name,
        capacity: event.capacity,
        taken,
        available: room(event.capacity ?? undefined, taken),
        prices: pricesOf(state.categories, (c) => event.categoryPrices[c.category] ?? event.priceCents),
      };
    }),
  };
}

/**
 * Up to five slot starts with room for `wanted` tickets, nearest to
 * `requested` first (the earlier of two equally near): what a kiosk can offer instead.
 */
export function nearestSlotsWithRoom(slots: EntrySlot[], requested: string, wanted: number): string[] {
  const target = minutesOf(requested);
  return slots
    .filter((slot) => slot.available >= wanted)
    .map((slot) => ({ entryTime: slot.entryTime, distance: Math.abs(minutesOf(slot.entryTime) - target) }))
    .sort((a, b) => a.distance - b.distance || (a.entryTime < b.entryTime ? -1 : 1))
    .slice(0, 5)
    .map((slot) => slot.entryTime);
}

/** The last day tickets are sold. */
export const lastSaleDay = (now: MuseumNow) => addDays(now.today, PUBLISHED_DAYS_AHEAD);

/** The problem of a date outside today … the last day tickets are sold, or null. */
function outsideSales(path: string, date: IsoDate, now: MuseumNow) {
  return date < now.today || date > lastSaleDay(now) ? { path, message: `Must be from ${now.today} to ${lastSaleDay(now)}.` } : null;
}

/** A day's availability (`date` today or later, within the year tickets are sold), in one round trip. */
export async function availabilityOn(db: Db, date: IsoDate, now: MuseumNow): Promise<Availability> {
  const outside = outsideSales("query.date", date, now);
  if (outside) throw validationProblem([outside]);
  const [state] = await runStep(selectDayStates(db, date, date));
  return availabilityOf(state!, now);
}

/** The most days after `startDate` a calendar's `endDate` may be (62 days in all: two months). */
const CALENDAR_MAX_SPAN = 61;
/** The days after `startDate` a calendar shows when no `endDate` is given (a month). */
const CALENDAR_DEFAULT_SPAN = 30;

/** A calendar's range from its query: the defaults filled in; 400 naming each field that breaks a rule. */
function calendarRange(query: { startDate?: IsoDate; endDate?: IsoDate }, now: MuseumNow): { from: IsoDate; to: IsoDate } {
  const from = query.startDate ?? now.today;
  const monthAfter = addDays(from, CALENDAR_DEFAULT_SPAN);
  const to = query.endDate ?? (monthAfter < lastSaleDay(now) ? monthAfter : lastSaleDay(now));
  const errors = [outsideSales("query.startDate", from, now), query.endDate === undefined ? null : outsideSales("query.endDate", to, now)];
  if (!errors.some(Boolean)) {
    if (to < from) errors.push({ path: "query.endDate", message: `Must not be before startDate (${from}).` });
    else if (to > addDays(from, CALENDAR_MAX_SPAN)) {
      errors.push({ path: "query.endDate", message: `Must be at most ${CALENDAR_MAX_SPAN} days after startDate (${addDays(from, CALENDAR_MAX_SPAN)}).` });
    }
  }
  const problems = errors.filter((error) => error !== null);
  if (problems.length > 0) throw validationProblem(problems);
  return { from, to };
}

/**
 * A product's status on a day: `closed` off sale, `sold-out` with nothing
 * left, `limited` with less than half left of what it can sell that day
 * (`sellable`, null: no limit), `available` otherwise.
 */
function saleStatus(onSale: boolean, available: number | null, sellable: number | null): SaleStatus {
  if (!onSale) return "closed";
  if (available === 0) return "sold-out";
  if (available !== null && sellable !== null && available * 2 < sellable) return "limited";
  return "available";
}

/** A day's status: the best of its products' (`available` over `limited` over `sold-out` over `closed`). */
const DAY_STATUSES: readonly SaleStatus[] = ["available", "limited", "sold-out", "closed"];

/** A day of the calendar: its availability (what GET /availability answers) with each product's status. */
function calendarDayOf(state: DayState, now: MuseumNow): AvailabilityCalendar["days"][number] {
  const { date, general, events } = availabilityOf(state, now);
  // On a timed day without a daily capacity, the day sells what its slots hold.
  const sellable = general.capacity ?? general.entrySlots?.reduce((sum, slot) => sum + slot.capacity, 0) ?? null;
  const generalStatus = saleStatus(generalSalesOpen(state.plan, date, now), general.available, sellable);
  // An event's tickets are sold all day of its date, the museum open or not (`stillOnSale`).
  const eventDays = events.map(({ eventId, name, capacity, available }) => ({
    eventId,
    name,
    status: saleStatus(true, available, capacity),
    capacity,
    available,
  }));
  const statuses = [generalStatus, ...eventDays.map((event) => event.status)];
  return {
    date,
    status: DAY_STATUSES.find((status) => statuses.includes(status))!,
    general: { status: generalStatus, capacity: general.capacity, available: general.available },
    events: eventDays,
  };
}

/** A day's sales: what `GET /availability` answers, its statuses as the calendar answers them, and each entry slot's status. */
export type DaySales = {
  plan: DayPlan | null;
  availability: Availability;
  statuses: AvailabilityCalendar["days"][number];
  /** On a timed day, the status of each of `availability.general.entrySlots`, in order. */
  slotStatuses: SaleStatus[];
};

/**
 * Each day's sales over [from, to] in one round trip, by the same reads and
 * rules as `GET /availability` and its calendar: for another door to the
 * same sales (OCTO), whose range rules are its own (the caller keeps it
 * within the days tickets are sold).
 */
export async function salesOver(db: Db, from: IsoDate, to: IsoDate, now: MuseumNow): Promise<DaySales[]> {
  const states = await runStep(selectDayStates(db, from, to));
  return states.map((state) => {
    const availability = availabilityOf(state, now);
    const salesOpen = generalSalesOpen(state.plan, state.date, now);
    const slotStatuses = (availability.general.entrySlots ?? []).map((slot) =>
      saleStatus(salesOpen && slotOpen(state.plan!, slot.entryTime, state.date, now), slot.available, slot.capacity),
    );
    return { plan: state.plan, availability, statuses: calendarDayOf(state, now), slotStatuses };
  });
}

/** Each day's availability and status over a range (the query's, its defaults filled in), in one round trip. */
export async function availabilityCalendar(
  db: Db,
  query: { startDate?: IsoDate; endDate?: IsoDate },
  now: MuseumNow,
): Promise<AvailabilityCalendar> {
  const { from, to } = calendarRange(query, now);
  const states = await runStep(selectDayStates(db, from, to));
  return { startDate: from, endDate: to, days: states.map((state) => calendarDayOf(state, now)) };
}
