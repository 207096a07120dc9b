// Capacity and timed entry (contract: "Capacity: no ticket beyond the places
// there are"), through the real Worker and D1: limits, the sold-out answer,
// availability, lowering limits, schedule changes under sold tickets, races.
import { describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, expectValidationError, plusDays, statusCounts, testDays } from "../support/helpers";
import { buy, createEvent, type PurchaseResponse } from "../tickets/fixtures";

const { today: TODAY, freshDay, openDay } = testDays(40);

type Availability = {
  date: string;
  open: boolean;
  general: {
    capacity: number | null;
    taken: number;
    available: number | null;
    entrySlots?: { entryTime: string; capacity: number; taken: number; available: number }[];
  };
  events: { eventId: string; name: string; capacity: number | null; taken: number; available: number | null }[];
};

async function setDay(date: string, plan: Record<string, unknown>, query = "") {
  return api(`/v1.1/museum-hours/exceptions/${date}${query}`, { method: "PUT", json: { closed: false, ...plan } });
}

const general = (ticketDate: string, entryTime?: string) => ({
  ticketType: "general",
  ticketDate,
  email: "visitor@example.com",
  ...(entryTime === undefined ? {} : { entryTime }),
});

async function sold(json: unknown): Promise<PurchaseResponse & { entryTime?: string }> {
  const res = await buy(json);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as PurchaseResponse & { entryTime?: string };
}

async function availability(date: string): Promise<Availability> {
  const res = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
  expect(res.status).toBe(200);
  return (await res.json()) as Availability;
}

describe("a day's general capacity", () => {
  it("sells up to the limit, then 409 sold-out with what is left, selling nothing", async () => {
    const date = await openDay({ capacity: 2 });
    await sold(general(date));
    await sold(general(date));
    const before = await dumpDatabase({ except: ["login_failures"] });
    const problem = await expectProblem(await buy(general(date)), 409);
    expect(problem).toMatchObject({ type: "/problems/sold-out", available: 0 });
    expect(problem).not.toHaveProperty("availableEntryTimes");
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
    expect((await availability(date)).general).toEqual({ capacity: 2, taken: 2, available: 0, prices: [{ category: "adult", name: "Adult", price: 25 }] });
  });

  it("has no limit on a special-hours day without capacity, whatever its weekday has", async () => {
    const date = await openDay({});
    for (let i = 0; i < 3; i += 1) await sold(general(date));
    expect((await availability(date)).general).toEqual({ capacity: null, taken: 3, available: null, prices: [{ category: "adult", name: "Adult", price: 25 }] });
  });

  it("gives a cancelled ticket's place back at once", async () => {
    const date = await openDay({ capacity: 1 });
    await sold(general(date));
    await expectProblem(await buy(general(date)), 409);
    // Closing the day with cancelTickets cancels it; reopening sells the freed place.
    expect((await api(`/v1.1/museum-hours/exceptions/${date}?cancelTickets=true`, { method: "PUT", json: { closed: true } })).status).toBe(200);
    expect((await setDay(date, { timeOpen: "09:00", timeClose: "18:00", capacity: 1 })).status).toBe(200);
    await sold(general(date));
    expect((await availability(date)).general).toMatchObject({ taken: 1, available: 0 });
  });
});

describe("timed entry", () => {
  it("lists the slots from timeOpen, each ending by timeClose (10:00–11:50 by 25)", async () => {
    const date = await openDay({ timeOpen: "10:00", timeClose: "11:50", entrySlotMinutes: 25, slotCapacity: 3 });
    const slots = (await availability(date)).general.entrySlots!;
    expect(slots.map((s) => s.entryTime)).toEqual(["10:00", "10:25", "10:50", "11:15"]);
    expect(slots.every((s) => s.capacity === 3 && s.taken === 0 && s.available === 3)).toBe(true);
  });

  it("requires a slot start on a timed day and refuses entryTime elsewhere (400 naming entryTime)", async () => {
    const timed = await openDay({ entrySlotMinutes: 30, slotCapacity: 5 });
    const untimed = await openDay({});
    await expectValidationError(await buy(general(timed)), "entryTime");
    await expectValidationError(await buy(general(timed, "09:10")), "entryTime");
    await expectValidationError(await buy(general(timed, "17:45")), "entryTime");
    await expectValidationError(await buy(general(timed, "25:00")), "entryTime");
    await expectValidationError(await buy(general(untimed, "09:00")), "entryTime");
    const eventId = await createEvent([timed]);
    await expectValidationError(
      await buy({ ticketType: "event", eventId, ticketDate: timed, email: "v@example.com", entryTime: "09:00" }),
      "entryTime",
    );
    const ticket = await sold(general(timed, "17:30"));
    expect(ticket.entryTime).toBe("17:30");
    const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ entryTime: "17:30", price: 25, status: "valid" });
  });

  it("answers a full slot with the nearest slots that have room (the earlier of two equally near first)", async () => {
    const date = await openDay({ timeOpen: "10:00", timeClose: "11:50", entrySlotMinutes: 25, slotCapacity: 1 });
    await sold(general(date, "10:25"));
    const problem = await expectProblem(await buy(general(date, "10:25")), 409);
    expect(problem).toMatchObject({ type: "/problems/sold-out", available: 0, availableEntryTimes: ["10:00", "10:50", "11:15"] });
    await sold(general(date, "10:00"));
    await sold(general(date, "10:50"));
    await sold(general(date, "11:15"));
    expect(await expectProblem(await buy(general(date, "11:15")), 409)).toMatchObject({ availableEntryTimes: [] });
  });

  it("holds the daily capacity too: the slots' room never passes the day's", async () => {
    const date = await openDay({ capacity: 2, entrySlotMinutes: 60, slotCapacity: 5 });
    await sold(general(date, "09:00"));
    await sold(general(date, "10:00"));
    const problem = await expectProblem(await buy(general(date, "11:00")), 409);
    // Only the daily limit is short: no other slot would help.
    expect(problem).toMatchObject({ type: "/problems/sold-out", available: 0, availableEntryTimes: [] });
    const day = await availability(date);
    expect(day.general).toMatchObject({ capacity: 2, taken: 2, available: 0 });
    expect(day.general.entrySlots!.every((slot) => slot.available === 0)).toBe(true);
  });
});

describe("an event's capacity, per date", () => {
  it("is returned when set, limits each date apart, and can be removed with null", async () => {
    const [a, b] = [freshDay(), freshDay()];
    const eventId = await createEvent([a, b], { capacity: 1 });
    expect(((await (await api(`/v1.1/special-events/${eventId}`)).json()) as { capacity?: number }).capacity).toBe(1);
    await sold({ ticketType: "event", eventId, ticketDate: a, email: "v@example.com" });
    await sold({ ticketType: "event", eventId, ticketDate: b, email: "v@example.com" });
    expect(await expectProblem(await buy({ ticketType: "event", eventId, ticketDate: a, email: "v@example.com" }), 409)).toMatchObject({
      type: "/problems/sold-out",
      available: 0,
    });
    const day = await availability(a);
    expect(day.events.find((e) => e.eventId === eventId)).toMatchObject({ capacity: 1, taken: 1, available: 0 });

    const patched = await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { capacity: null } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).not.toHaveProperty("capacity");
    await sold({ ticketType: "event", eventId, ticketDate: a, email: "v@example.com" });
  });

  it("refuses a capacity below what is sold (409 capacity-below-sold with dates and sold), changing nothing", async () => {
    const [a, b] = [freshDay(), freshDay()];
    const eventId = await createEvent([a, b]);
    for (let i = 0; i < 3; i += 1) await sold({ ticketType: "event", eventId, ticketDate: a, email: "v@example.com" });
    await sold({ ticketType: "event", eventId, ticketDate: b, email: "v@example.com" });
    const before = await dumpDatabase({ except: ["login_failures"] });
    const problem = await expectProblem(
      await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { capacity: 2, name: "Renamed" } }),
      409,
    );
    expect(problem).toMatchObject({ type: "/problems/capacity-below-sold", dates: [a], sold: 3 });
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
    expect((await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { capacity: 3 } })).status).toBe(200);
  });
});

describe("bad limits and entry times are 400s naming the field", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["capacity 0", { capacity: 0 }, "capacity"],
    ["a fractional capacity", { capacity: 1.5 }, "capacity"],
    ["a capacity as text", { capacity: "10" }, "capacity"],
    ["capacity over 100000", { capacity: 100_001 }, "capacity"],
    ["entrySlotMinutes without slotCapacity", { entrySlotMinutes: 30 }, "slotCapacity"],
    ["slotCapacity without entrySlotMinutes", { slotCapacity: 30 }, "entrySlotMinutes"],
    ["a slot longer than the day", { timeOpen: "10:00", timeClose: "11:00", entrySlotMinutes: 90, slotCapacity: 5 }, "entrySlotMinutes"],
    ["slots of 4 minutes", { entrySlotMinutes: 4, slotCapacity: 5 }, "entrySlotMinutes"],
    ["slotCapacity null", { entrySlotMinutes: 30, slotCapacity: null }, "slotCapacity"],
  ])("an exception with %s", async (_, plan, field) => {
    const date = freshDay();
    await expectValidationError(await setDay(date, { timeOpen: "09:00", timeClose: "18:00", ...plan }), field);
  });

  it("refuses limits on a closure, and capacity null or 0 on an event's create", async () => {
    await expectValidationError(
      await api(`/v1.1/museum-hours/exceptions/${freshDay()}`, { method: "PUT", json: { closed: true, capacity: 5 } }),
      "capacity",
    );
    for (const capacity of [null, 0, 2.5]) {
      const res = await api("/v1.1/special-events", {
        method: "POST",
        json: { name: "X", location: "Y", eventDescription: "Z", dates: [freshDay()], price: 1, capacity },
      });
      await expectValidationError(res, "capacity");
    }
  });

  it("refuses a weekday with half a timed entry in the weekly schedule", async () => {
    const week = (await (await api("/v1.1/museum-hours/schedule")).json()) as Record<string, unknown>;
    const res = await api("/v1.1/museum-hours/schedule", {
      method: "PUT",
      json: { ...week, monday: { timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 30 } },
    });
    await expectValidationError(res, "monday.slotCapacity");
  });
});

describe("GET /availability", () => {
  it("answers a closed day with open false and nothing general to sell, and lists the day's events", async () => {
    const date = freshDay();
    expect((await api(`/v1.1/museum-hours/exceptions/${date}`, { method: "PUT", json: { closed: true } })).status).toBe(201);
    const eventId = await createEvent([date], { capacity: 5, name: `Evening ${crypto.randomUUID()}` });
    const day = await availability(date);
    expect(day).toMatchObject({ date, open: false, general: { available: 0 } });
    expect(day.events).toContainEqual(expect.objectContaining({ eventId, capacity: 5, taken: 0, available: 5 }));
  });

  it("refuses a past date, a date past the year of sales, and a malformed one", async () => {
    for (const date of [plusDays(TODAY, -1), plusDays(TODAY, 366), "2026-02-30", "tomorrow"]) {
      await expectValidationError(await api(`/v1.1/availability?date=${date}`, { as: "sales" }), "query.date");
    }
  });

  it("is for admin and sales only", async () => {
    expect((await api("/v1.1/availability", { as: "gate" })).status).toBe(403);
    expect((await api("/v1.1/availability", { as: "admin" })).status).toBe(200);
  });
});

// Each test sends 40 to 100 requests at once (about 3.5 s here, more on a
// loaded CI machine): the limit is for a hung test, not a measure of speed.
describe("exactly the places there are, under concurrency", { timeout: 30_000 }, () => {
  const burst = (n: number, json: unknown) => statusCounts(Array.from({ length: n }, () => buy(json)));

  it("100 simultaneous purchases for the last 10 places of a day: exactly 10 tickets", async () => {
    const date = await openDay({ capacity: 15 });
    for (let i = 0; i < 5; i += 1) await sold(general(date));
    const counts = await burst(100, general(date));
    expect(Object.fromEntries(counts)).toEqual({ 201: 10, 409: 90 });
    expect((await availability(date)).general).toMatchObject({ taken: 15, available: 0 });
  });

  it("the same for a slot", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const counts = await burst(100, general(date, "13:00"));
    expect(Object.fromEntries(counts)).toEqual({ 201: 10, 409: 90 });
    const slot = (await availability(date)).general.entrySlots!.find((s) => s.entryTime === "13:00");
    expect(slot).toMatchObject({ taken: 10, available: 0 });
  });

  it("the same for an event date", async () => {
    const date = freshDay();
    const eventId = await createEvent([date], { capacity: 10 });
    const counts = await burst(100, { ticketType: "event", eventId, ticketDate: date, email: "v@example.com" });
    expect(Object.fromEntries(counts)).toEqual({ 201: 10, 409: 90 });
  });

  it("purchases racing a capacity change: never more tickets than the limit in force", async () => {
    const date = await openDay({ capacity: 50 });
    const lower = setDay(date, { timeOpen: "09:00", timeClose: "18:00", capacity: 20 });
    const purchases = burst(60, general(date));
    const [lowered, counts] = await Promise.all([lower, purchases]);
    const taken = (await availability(date)).general.taken;
    expect(counts.get(201)).toBe(taken);
    if (lowered.status === 200) expect(taken).toBeLessThanOrEqual(20);
    else expect((await expectProblem(lowered, 409)).type).toBe("/problems/capacity-below-sold");
    expect(taken).toBeLessThanOrEqual(50);
  });

  it("a freed place is sold once: purchases racing a closure with cancelTickets and a reopening", async () => {
    const date = await openDay({ capacity: 5 });
    for (let i = 0; i < 5; i += 1) await sold(general(date));
    // The closure cancels all five; the reopening allows five again.
    await api(`/v1.1/museum-hours/exceptions/${date}?cancelTickets=true`, { method: "PUT", json: { closed: true } });
    const reopen = setDay(date, { timeOpen: "09:00", timeClose: "18:00", capacity: 5 });
    const [, counts] = await Promise.all([reopen, burst(40, general(date))]);
    expect(counts.get(201) ?? 0).toBeLessThanOrEqual(5);
    expect((await availability(date)).general.taken).toBe(counts.get(201) ?? 0);
  });
});

describe("changes under sold tickets", () => {
  it("an exception that moves a timed day's slots is 409 tickets-affected; cancelTickets cancels and frees them", async () => {
    const date = await openDay({ entrySlotMinutes: 30, slotCapacity: 5 });
    const ticket = await sold(general(date, "09:30"));
    const moved = { timeOpen: "09:15", timeClose: "18:00", entrySlotMinutes: 30, slotCapacity: 5 };
    expect(await expectProblem(await setDay(date, moved), 409)).toMatchObject({
      type: "/problems/tickets-affected",
      affectedTickets: 1,
      dates: [date],
    });
    expect((await setDay(date, moved, "?cancelTickets=true")).status).toBe(200);
    const status = (await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as { status: string };
    expect(status.status).toBe("cancelled");
    expect((await availability(date)).general.taken).toBe(0);
  });

  it("turning timed entry on under untimed tickets is 409; turning it off keeps every ticket", async () => {
    const untimed = await openDay({});
    await sold(general(untimed));
    expect((await expectProblem(await setDay(untimed, { timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 30, slotCapacity: 5 }), 409)).type).toBe(
      "/problems/tickets-affected",
    );
    const timed = await openDay({ entrySlotMinutes: 30, slotCapacity: 5 });
    await sold(general(timed, "10:00"));
    expect((await setDay(timed, { timeOpen: "09:00", timeClose: "18:00" })).status).toBe(200);
  });

  it("lowering a day's capacity below what is taken is 409 capacity-below-sold; tickets-affected comes first", async () => {
    const date = await openDay({ capacity: 10, entrySlotMinutes: 60, slotCapacity: 10 });
    await sold(general(date, "09:00"));
    await sold(general(date, "09:00"));
    await sold(general(date, "10:00"));
    expect(await expectProblem(await setDay(date, { timeOpen: "09:00", timeClose: "18:00", capacity: 2, entrySlotMinutes: 60, slotCapacity: 10 }), 409)).toMatchObject({
      type: "/problems/capacity-below-sold",
      dates: [date],
      sold: 3,
    });
    expect(await expectProblem(await setDay(date, { timeOpen: "09:00", timeClose: "18:00", capacity: 10, entrySlotMinutes: 60, slotCapacity: 1 }), 409)).toMatchObject({
      type: "/problems/capacity-below-sold",
      sold: 2,
    });
    // Slots moved and a lower limit at once: the stranded tickets are answered first.
    expect((await expectProblem(await setDay(date, { timeOpen: "09:30", timeClose: "18:00", capacity: 1, entrySlotMinutes: 60, slotCapacity: 10 }), 409)).type).toBe(
      "/problems/tickets-affected",
    );
  });

  it("a weekly schedule that closes a weekday under sold tickets is 409 tickets-affected; cancelTickets cancels them", async () => {
    const week = (await (await api("/v1.1/museum-hours/schedule")).json()) as Record<string, unknown>;
    // The first Wednesday from day 100 on, without an exception.
    let date = plusDays(TODAY, 100);
    while (new Date(`${date}T12:00:00Z`).getUTCDay() !== 3) date = plusDays(date, 1);
    const ticket = await sold(general(date));
    const closedWednesday = { ...week, wednesday: null };
    const problem = await expectProblem(await api("/v1.1/museum-hours/schedule", { method: "PUT", json: closedWednesday }), 409);
    expect(problem).toMatchObject({ type: "/problems/tickets-affected" });
    expect((problem as unknown as { dates: string[] }).dates).toContain(date);
    expect(await (await api("/v1.1/museum-hours/schedule")).json()).toEqual(week);

    const res = await api("/v1.1/museum-hours/schedule?cancelTickets=true", { method: "PUT", json: closedWednesday });
    expect(res.status).toBe(200);
    expect(((await (await api(`/v1.1/tickets/${ticket.ticketId}`)).json()) as { status: string }).status).toBe("cancelled");
    expect((await api("/v1.1/museum-hours/schedule", { method: "PUT", json: week })).status).toBe(200);
  });

  it("a weekday capacity below what is taken on one of its dates is 409 capacity-below-sold", async () => {
    const week = (await (await api("/v1.1/museum-hours/schedule")).json()) as Record<string, { timeOpen: string; timeClose: string } | null>;
    let date = plusDays(TODAY, 150);
    while (new Date(`${date}T12:00:00Z`).getUTCDay() !== 4) date = plusDays(date, 1);
    await sold(general(date));
    await sold(general(date));
    const res = await api("/v1.1/museum-hours/schedule", { method: "PUT", json: { ...week, thursday: { ...week.thursday!, capacity: 1 } } });
    expect(await expectProblem(res, 409)).toMatchObject({ type: "/problems/capacity-below-sold", sold: 2 });
    const fits = await api("/v1.1/museum-hours/schedule", { method: "PUT", json: { ...week, thursday: { ...week.thursday!, capacity: 2 } } });
    expect(fits.status).toBe(200);
    expect((await expectProblem(await buy(general(date)), 409)).type).toBe("/problems/sold-out");
    expect((await api("/v1.1/museum-hours/schedule", { method: "PUT", json: week })).status).toBe(200);
  });
});
