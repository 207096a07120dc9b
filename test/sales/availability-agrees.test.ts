// GET /availability and the sale decide from the same conditions
// (src/sales/conditions.ts): over generated days (limits, timed entry, places
// already taken, the clock before, during and after the day), each product's
// `available` is exactly what can be bought there. One more is refused: 409
// sold-out naming the same figure, or 400 where nothing is on sale; and, for
// one product a day, `available` tickets are sold.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useClock } from "../support/clock";
import { api, plusDays } from "../support/helpers";
import { createEvent, order } from "../tickets/fixtures";

type Product = { available: number | null; entryTime?: string; eventId?: string };
type Availability = {
  general: { available: number | null; entrySlots?: { entryTime: string; available: number }[] };
  events: { eventId: string; available: number | null }[];
};

const pad = (n: number) => String(n).padStart(2, "0");
const timeOf = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

/** A day's plan: its hours (from 08:00, at least an hour), an optional daily capacity, optional timed entry. */
const plan = fc
  .record({
    open: fc.integer({ min: 8 * 60, max: 12 * 60 }),
    length: fc.integer({ min: 60, max: 6 * 60 }),
    capacity: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    timed: fc.option(fc.record({ entrySlotMinutes: fc.constantFrom(30, 45, 60, 90), slotCapacity: fc.integer({ min: 1, max: 4 }) }), { nil: undefined }),
  })
  .map(({ open, length, capacity, timed }) => ({
    timeOpen: timeOf(open),
    timeClose: timeOf(open + length),
    ...(capacity === undefined ? {} : { capacity }),
    ...timed,
  }));

const scenario = fc.record({
  plan,
  // Places taken before: general tickets (spread over the slots of a timed day), and an event's.
  sold: fc.integer({ min: 0, max: 8 }),
  eventCapacity: fc.integer({ min: 1, max: 5 }),
  eventSold: fc.integer({ min: 0, max: 5 }),
  // The museum's time of day when availability is read: before opening to after closing.
  clock: fc.integer({ min: 7 * 60, max: 19 * 60 }),
  // Which product is bought out at the end (an index among the day's products).
  buyOut: fc.nat(),
});

/** The date of run `i`: a winter day (New York is UTC-5), one no other run or test uses. */
const dateOfRun = (i: number) => plusDays("2031-12-01", i);
/** The instant the museum's clock reads `minutes` past midnight on `date`. */
const at = (date: string, minutes: number) => new Date(Date.parse(`${date}T00:00:00Z`) + (minutes + 5 * 60) * 60_000).toISOString();

async function put(path: string, json: unknown) {
  const res = await api(path, { method: "PUT", json });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

/** Sells `count` tickets of `line` in one order, if they fit (nothing otherwise). */
async function trySell(count: number, line: Record<string, unknown>) {
  if (count === 0) return;
  const res = await order({ email: "agree@example.com", tickets: Array.from({ length: count }, () => line) });
  expect([201, 409]).toContain(res.status);
}

describe("GET /availability and the sale", () => {
  it("agree on every product: `available` can be bought, one more is refused with that figure", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const date = dateOfRun(run++);
        useClock(at(plusDays(date, -1), 12 * 60));
        await put(`/v1.1/museum-hours/exceptions/${date}`, { closed: false, ...s.plan });
        const eventId = await createEvent([date], { capacity: s.eventCapacity });
        const slots: string[] = [];
        if (s.plan.entrySlotMinutes !== undefined) {
          const open = Number(s.plan.timeOpen.slice(0, 2)) * 60 + Number(s.plan.timeOpen.slice(3));
          const close = Number(s.plan.timeClose.slice(0, 2)) * 60 + Number(s.plan.timeClose.slice(3));
          for (let start = open; start + s.plan.entrySlotMinutes <= close; start += s.plan.entrySlotMinutes) slots.push(timeOf(start));
        }
        // The general tickets in one order a slot (the first slots first), the event's in one.
        const perSlot = slots.length === 0 ? [s.sold] : slots.map((_, i) => Math.floor(s.sold / slots.length) + (i < s.sold % slots.length ? 1 : 0));
        for (const [i, count] of perSlot.entries()) {
          await trySell(count, { ticketType: "general", ticketDate: date, ...(slots.length > 0 ? { entryTime: slots[i] } : {}) });
        }
        await trySell(s.eventSold, { ticketType: "event", eventId, ticketDate: date });

        useClock(at(date, s.clock));
        const res = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
        expect(res.status).toBe(200);
        const availability = (await res.json()) as Availability;
        const products: Product[] = [
          ...(availability.general.entrySlots ?? [{ available: availability.general.available }]).map((slot) => ({
            available: slot.available,
            ...("entryTime" in slot ? { entryTime: slot.entryTime } : {}),
          })),
          ...availability.events.map((event) => ({ available: event.available, eventId: event.eventId })),
        ];
        const lineOf = (p: Product) =>
          p.eventId === undefined
            ? { ticketType: "general", ticketDate: date, ...(p.entryTime === undefined ? {} : { entryTime: p.entryTime }) }
            : { ticketType: "event", eventId: p.eventId, ticketDate: date };
        const buyMany = (p: Product, n: number) => order({ email: "agree@example.com", tickets: Array.from({ length: n }, () => lineOf(p)) });

        for (const product of products) {
          if (product.available === null) {
            // On sale without a limit: it sells.
            expect((await buyMany(product, 1)).status).toBe(201);
            continue;
          }
          const more = await buyMany(product, product.available + 1);
          const problem = (await more.json()) as { type?: string; available?: number };
          if (product.available === 0 && more.status === 400) continue; // nothing on sale there
          expect(more.status, JSON.stringify({ product, problem })).toBe(409);
          expect(problem.type).toBe("/problems/sold-out");
          expect(problem.available).toBe(product.available);
        }
        const chosen = products[s.buyOut % products.length]!;
        if (chosen.available !== null && chosen.available > 0) {
          const bought = await buyMany(chosen, chosen.available);
          expect(bought.status, await bought.clone().text()).toBe(201);
        }
      }),
      { seed: 3939, numRuns: 20 },
    );
  }, 120_000);
});
