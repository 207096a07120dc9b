// What is left to sell on a day (docs/capacity.md): read in one round trip,
// for kiosks (GET /availability) and for a refused sale's answer.
import { selectCategories } from "../categories/statements";
import { selectEventCategoryPricesOn, selectEventsOn } from "../events/statements";
import { type Calendar, type DayPlan, hoursOn, minutesOf, PUBLISHED_DAYS_AHEAD, slotEnd, slotStarts } from "../hours/calendar";
import { selectExceptions, selectWeeklySchedule } from "../hours/statements";
import { Batch, type Db } from "../platform/batch";
import { validationProblem } from "../http/errors";
import { addDays, type IsoDate, type MuseumNow } from "../platform/dates";
import { amountOf } from "../platform/money";
import type { Availability } from "./schemas";
import { type PlacesTaken, selectPlacesTaken } from "../tickets/statements";

export type EntrySlot = { entryTime: string; capacity: number; taken: number; available: number };

/** A category on sale, and its price (cents) for general entry. */
type CategoryPrice = { category: string; name: string; priceCents: number };

/** What the sale rules need to know of a day: its plan, the places taken, its active events, the categories on sale. */
export type DayState = {
  date: IsoDate;
  plan: DayPlan | null;
  places: PlacesTaken;
  events: { eventId: string; name: string; capacity: number | null; priceCents: number; categoryPrices: Map<string, number> }[];
  categories: CategoryPrice[];
};

/** Adds the reads of a day's plan, places taken and active events to a batch; the state, once it has run. */
export function addDayStateReads(batch: Batch, date: IsoDate): () => DayState {
  const weekly = batch.add(selectWeeklySchedule(batch.db));
  const exceptions = batch.add(selectExceptions(batch.db, date, date));
  const places = batch.add(selectPlacesTaken(batch.db, date));
  const events = batch.add(selectEventsOn(batch.db, date));
  const eventPrices = batch.add(selectEventCategoryPricesOn(batch.db, date));
  const categories = batch.add(selectCategories(batch.db, false));
  return () => {
    const calendar: Calendar = { weekly: weekly.value, exceptions: new Map(exceptions.value.map((e) => [e.date, e])) };
    return {
      date,
      plan: hoursOn(calendar, date),
      places: places.value,
      events: events.value.map((e) => ({
        eventId: e.event_id,
        name: e.name,
        capacity: e.capacity,
        priceCents: e.price_cents,
        categoryPrices: new Map(eventPrices.value.filter((p) => p.event_id === e.event_id).map((p) => [p.category_id, p.price_cents])),
      })),
      categories: categories.value.map((c) => ({ category: c.category_id, name: c.name, priceCents: c.price_cents })),
    };
  };
}

/** A day's plan, places taken and active events, in one round trip. */
async function readDayState(db: Db, date: IsoDate): Promise<DayState> {
  const batch = new Batch(db);
  const state = addDayStateReads(batch, date);
  await batch.run();
  return state();
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
        prices: pricesOf(state.categories, (c) => event.categoryPrices.get(c.category) ?? event.priceCents),
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

/** A day's availability (`date` today or later, within the year tickets are sold), in one round trip. */
export async function availabilityOn(db: Db, date: IsoDate, now: MuseumNow): Promise<Availability> {
  const lastDay = addDays(now.today, PUBLISHED_DAYS_AHEAD);
  if (date < now.today || date > lastDay) {
    throw validationProblem([{ path: "query.date", message: `Must be from ${now.today} to ${lastDay}.` }]);
  }
  return availabilityOf(await readDayState(db, date), now);
}
