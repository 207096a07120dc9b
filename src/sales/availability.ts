// What is left to sell on a day, or on each day of a range (docs/capacity.md):
// read in one round trip, for kiosks (GET /availability), web shops
// (GET /availability/calendar) and a refused sale's answer. Every figure is
// read through the fragments the sale's conditions are made of
// (conditions.ts): whether general admission, each slot and each event is
// still on sale, the room left under each limit, each price; one statement
// reads every day of the range.
import sql, { raw, type Sql } from "sql-template-tag";
import { type CategoryPrice, pricesOnSale } from "../categories/statements";
import { activeEventsOn } from "../events/statements";
import { type DayPlan, minutesOf } from "../hours/calendar";
import { parsePlan, planField, plansBetween, slotEndOf, slotStartsOf } from "../hours/statements";
import { validationProblem } from "../http/errors";
import { type Batch, type Db, read, runStep, type Step, step } from "../platform/batch";
import { addDays, type IsoDate, type MuseumNow } from "../platform/dates";
import { amountOf } from "../platform/money";
import { placesTaken } from "../tickets/statements/places";
import { outsideSaleWindow, priceOf, saleWindow } from "./checks";
import { dayOnSale, eventOnSale, roomLeft, slotOnSale } from "./conditions";
import type { Availability, AvailabilityCalendar, SaleStatus } from "./schemas";

export type EntrySlot = { entryTime: string; capacity: number; taken: number; available: number };

/** The room left under a limit: null where there is none. */
type Room = number | null;

/**
 * A day as the sale's conditions judge it: its plan; whether general
 * admission, each slot and each active event are still on sale, the places
 * taken and the room left in each; with `prices`, what each category costs.
 */
export type DayState = {
  date: IsoDate;
  plan: DayPlan | null;
  general: { onSale: boolean; taken: number; room: Room };
  slots: { entryTime: string; endTime: string; onSale: boolean; taken: number; room: Room }[];
  events: { eventId: string; name: string; capacity: number | null; onSale: boolean; taken: number; room: Room; prices?: CategoryPrice[] }[];
  prices?: CategoryPrice[];
};

/** A record as SQL's JSON gives it: `onSale` a condition's 1 or 0. */
type SqlFlags<T> = Omit<T, "onSale"> & { onSale: number };

// The columns of the common table `general_day` (one row a day).
const DAY = raw("general_day.day");
const PLAN = raw("general_day.plan");
const TAKEN = raw("general_day.taken");

/** The state of each date in [from, to] at `now`, in order: one statement, however long the range. */
function selectDayStates(db: Db, range: { from: IsoDate; to: IsoDate }, now: MuseumNow, withPrices: boolean): Step<DayState[]> {
  const slots = sql`(SELECT json_group_array(json_object('entryTime', s.entry_time, 'endTime', ${slotEndOf(PLAN, raw("s.entry_time"))}, 'onSale', ${slotOnSale(DAY, PLAN, raw("s.entry_time"), now)},
                                                         'taken', s.taken, 'room', ${roomLeft(planField(PLAN, "slotCapacity"), raw("s.taken"))}))
      FROM (SELECT grid.entry_time, ${placesTaken(DAY, "slot", raw("grid.entry_time"))} AS taken
              FROM ${slotStartsOf(PLAN)} grid ORDER BY grid.entry_time) s)`;
  const eventId = raw("ev.event_id");
  const eventPrices = withPrices ? sql`, 'prices', json(${pricesOnSale((category) => priceOf(eventId, category))})` : sql``;
  const events = sql`(SELECT json_group_array(json_object('eventId', ev.event_id, 'name', ev.name, 'capacity', ev.capacity,
                                                          'onSale', ${eventOnSale(DAY, now)}, 'taken', ev.taken,
                                                          'room', ${roomLeft(raw("ev.capacity"), raw("ev.taken"))} ${eventPrices}))
      FROM (SELECT x.event_id, x.name, x.capacity, ${placesTaken(DAY, "event", raw("x.event_id"))} AS taken
              FROM (${activeEventsOn(DAY)}) x ORDER BY x.name, x.event_id) ev)`;
  const prices: Sql = withPrices ? pricesOnSale((category) => priceOf(null, category)) : sql`NULL`;
  return step(
    db,
    sql`WITH RECURSIVE ${plansBetween(range.from, range.to)},
          general_day(day, plan, taken) AS MATERIALIZED (SELECT day, plan, ${placesTaken(raw("plans.day"), "day", sql`''`)} FROM plans)
        SELECT day, plan, taken, ${dayOnSale(DAY, PLAN, now)} AS on_sale, ${roomLeft(planField(PLAN, "capacity"), TAKEN)} AS room,
               ${slots} AS slots, ${events} AS events, ${prices} AS prices
          FROM general_day ORDER BY day`,
    (result) =>
      read
        .rows<{ day: IsoDate; plan: string | null; taken: number; on_sale: number; room: Room; slots: string; events: string; prices: string | null }>()(result)
        .map((row) => {
          // JSON has no booleans: SQL's conditions are 1 or 0.
          const slots = JSON.parse(row.slots) as SqlFlags<DayState["slots"][number]>[];
          const events = JSON.parse(row.events) as SqlFlags<DayState["events"][number]>[];
          return {
            date: row.day,
            plan: parsePlan(row.plan),
            general: { onSale: row.on_sale === 1, taken: row.taken, room: row.room },
            slots: slots.map((slot) => ({ ...slot, onSale: slot.onSale === 1 })),
            events: events.map((event) => ({ ...event, onSale: event.onSale === 1 })),
            ...(row.prices === null ? {} : { prices: JSON.parse(row.prices) as CategoryPrice[] }),
          };
        }),
  );
}

/** Adds the read of a day's state at `now` to a batch; the state, once it has run. */
export function addDayStateRead(batch: Batch, date: IsoDate, now: MuseumNow): () => DayState {
  const states = batch.add(selectDayStates(batch.db, { from: date, to: date }, now, false));
  return () => states.value[0]!;
}

/** What is sold where the room is `room` while `onSale`: nothing once it is not. */
const availableIn = (onSale: boolean, room: Room) => (onSale ? room : 0);

/** The day's general places, and each slot's on a timed day. */
export function generalAvailability(state: DayState): Omit<Availability["general"], "prices"> {
  const { plan, general } = state;
  const dayRoom = availableIn(general.onSale, general.room);
  const figures = { capacity: plan?.capacity ?? null, taken: general.taken };
  if (!plan || plan.entrySlotMinutes === undefined) return { ...figures, available: dayRoom };
  const entrySlots: EntrySlot[] = state.slots.map((slot) => {
    const own = availableIn(general.onSale && slot.onSale, slot.room) ?? 0;
    return { entryTime: slot.entryTime, capacity: plan.slotCapacity!, taken: slot.taken, available: Math.min(own, dayRoom ?? own) };
  });
  const slotsRoom = entrySlots.reduce((sum, slot) => sum + slot.available, 0);
  return { ...figures, available: Math.min(slotsRoom, dayRoom ?? slotsRoom), entrySlots };
}

/** Prices (cents) as the API shows them. */
function pricesOf(prices: CategoryPrice[] | undefined) {
  return (prices ?? []).map((p) => ({ category: p.category, name: p.name, price: amountOf(p.priceCents) }));
}

/** A day's availability: general places (per slot on a timed day) and each active event's, with their prices per category. */
function availabilityOf(state: DayState): Availability {
  return {
    date: state.date,
    open: state.plan !== null,
    general: { ...generalAvailability(state), prices: pricesOf(state.prices) },
    events: state.events.map((event) => ({
      eventId: event.eventId,
      name: event.name,
      capacity: event.capacity,
      taken: event.taken,
      available: availableIn(event.onSale, event.room),
      prices: pricesOf(event.prices),
    })),
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

/** The problem of a date outside the days tickets are sold on, or null. */
function outsideSales(path: string, date: IsoDate, now: MuseumNow) {
  if (!outsideSaleWindow(date, now.today)) return null;
  const { first, last } = saleWindow(now.today);
  return { path, message: `Must be from ${first} to ${last}.` };
}

/** A day's availability (`date` among the days tickets are sold on), in one round trip. */
export async function availabilityOn(db: Db, date: IsoDate, now: MuseumNow): Promise<Availability> {
  const outside = outsideSales("query.date", date, now);
  if (outside) throw validationProblem([outside]);
  const [state] = await runStep(selectDayStates(db, { from: date, to: date }, now, true));
  return availabilityOf(state!);
}

/** The most days after `startDate` a calendar's `endDate` may be (62 days in all: two months). */
const CALENDAR_MAX_SPAN = 61;
/** The days after `startDate` a calendar shows when no `endDate` is given (a month). */
const CALENDAR_DEFAULT_SPAN = 30;

/** A calendar's range from its query: the defaults filled in; 400 naming each field that breaks a rule. */
function calendarRange(query: { startDate?: IsoDate; endDate?: IsoDate }, now: MuseumNow): { from: IsoDate; to: IsoDate } {
  const from = query.startDate ?? now.today;
  const monthAfter = addDays(from, CALENDAR_DEFAULT_SPAN);
  const lastSaleDay = saleWindow(now.today).last;
  const to = query.endDate ?? (monthAfter < lastSaleDay ? monthAfter : lastSaleDay);
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
function calendarDayOf(state: DayState): AvailabilityCalendar["days"][number] {
  const { date, general, events } = availabilityOf(state);
  // On a timed day without a daily capacity, the day sells what its slots hold.
  const sellable = general.capacity ?? general.entrySlots?.reduce((sum, slot) => sum + slot.capacity, 0) ?? null;
  const generalStatus = saleStatus(state.general.onSale, general.available, sellable);
  const eventDays = events.map(({ eventId, name, capacity, available }, i) => ({
    eventId,
    name,
    status: saleStatus(state.events[i]!.onSale, available, capacity),
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
  /** On a timed day, the status and the end (`HH:mm`) of each of `availability.general.entrySlots`, in order. */
  slotStatuses: SaleStatus[];
  slotEnds: string[];
};

/**
 * Each day's sales over [from, to] in one round trip, by the same reads and
 * rules as `GET /availability` and its calendar: for another door to the
 * same sales (OCTO), whose range rules are its own (the caller keeps it
 * within the days tickets are sold).
 */
export async function salesOver(db: Db, from: IsoDate, to: IsoDate, now: MuseumNow): Promise<DaySales[]> {
  const states = await runStep(selectDayStates(db, { from, to }, now, false));
  return states.map((state) => {
    const availability = availabilityOf(state);
    const slotStatuses = (availability.general.entrySlots ?? []).map((slot, i) =>
      saleStatus(state.general.onSale && state.slots[i]!.onSale, slot.available, slot.capacity),
    );
    return { plan: state.plan, availability, statuses: calendarDayOf(state), slotStatuses, slotEnds: state.slots.map((slot) => slot.endTime) };
  });
}

/** Each day's availability and status over a range (the query's, its defaults filled in), in one round trip. */
export async function availabilityCalendar(
  db: Db,
  query: { startDate?: IsoDate; endDate?: IsoDate },
  now: MuseumNow,
): Promise<AvailabilityCalendar> {
  const range = calendarRange(query, now);
  const states = await runStep(selectDayStates(db, range, now, false));
  return { startDate: range.from, endDate: range.to, days: states.map(calendarDayOf) };
}
