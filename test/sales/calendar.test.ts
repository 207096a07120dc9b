// The availability calendar (contract: "Capacity", GET /availability/calendar)
// through the real Worker and D1: every day of a range is what GET
// /availability answers for that date, statuses at their boundaries, the
// range's defaults and rules, who may read it.
import { beforeAll, describe, expect, it } from "vitest";
import { useClock } from "../support/clock";
import { type AccountKey, api, expectProblem, expectValidationError, plusDays } from "../support/helpers";
import { createEvent, order } from "../tickets/fixtures";

type Status = "closed" | "sold-out" | "limited" | "available";
type Product = { status: Status; capacity: number | null; available: number | null };
type CalendarDay = { date: string; status: Status; general: Product; events: (Product & { eventId: string; name: string })[] };
type Calendar = { startDate: string; endDate: string; days: CalendarDay[] };
type Availability = {
  date: string;
  open: boolean;
  general: { capacity: number | null; taken: number; available: number | null };
  events: { eventId: string; name: string; capacity: number | null; taken: number; available: number | null }[];
};

/** 18:30 in New York (the museum's time zone): Tuesday 2026-12-01 has closed at 18:00. */
const AFTER_CLOSING = "2026-12-01T23:30:00Z";
const TODAY = "2026-12-01";
const LAST = "2026-12-24";

async function calendar(query: string, as: AccountKey = "sales"): Promise<Calendar> {
  const res = await api(`/v1.1/availability/calendar${query}`, { as });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get("Cache-Control")).toBe("no-store");
  return (await res.json()) as Calendar;
}

async function availability(date: string): Promise<Availability> {
  const res = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
  expect(res.status).toBe(200);
  return (await res.json()) as Availability;
}

async function put(path: string, json: unknown) {
  const res = await api(path, { method: "PUT", json });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

/** Sells `count` tickets of one kind in one order. */
async function sell(count: number, line: { ticketDate: string; entryTime?: string; eventId?: string }) {
  const ticket = { ticketType: line.eventId === undefined ? "general" : "event", ...line };
  const res = await order({ email: "shop@example.com", tickets: Array.from({ length: count }, () => ticket) });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** A calendar day is GET /availability's day for its date, field by field, with statuses added. */
function expectSameFigures(day: CalendarDay, one: Availability) {
  expect(one.date).toBe(day.date);
  expect(day.general.capacity).toBe(one.general.capacity);
  expect(day.general.available).toBe(one.general.available);
  expect(day.events.map((e) => e.eventId)).toEqual(one.events.map((e) => e.eventId));
  day.events.forEach((event, i) => {
    expect(event.name).toBe(one.events[i]!.name);
    expect(event.capacity).toBe(one.events[i]!.capacity);
    expect(event.available).toBe(one.events[i]!.available);
  });
}

describe("a range of days", () => {
  const events = { a: "", b: "", c: "" };

  beforeAll(async () => {
    useClock(AFTER_CLOSING);
    const timed = { timeOpen: "10:00", timeClose: "12:00", entrySlotMinutes: 30, slotCapacity: 4 };
    await put("/v1.1/museum-hours/schedule", {
      sunday: null,
      monday: null,
      tuesday: { timeOpen: "09:00", timeClose: "18:00" },
      wednesday: { timeOpen: "09:00", timeClose: "18:00", capacity: 10 },
      // Four slots of four: the day sells 16.
      thursday: timed,
      friday: { ...timed, capacity: 6 },
      saturday: { timeOpen: "10:00", timeClose: "16:00", capacity: 4 },
    });
    await put("/v1.1/museum-hours/exceptions/2026-12-09", { closed: true });
    // Special hours without a capacity: no daily limit, whatever Thursday has.
    await put("/v1.1/museum-hours/exceptions/2026-12-10", { closed: false, timeOpen: "12:00", timeClose: "14:00" });
    await put("/v1.1/museum-hours/exceptions/2026-12-14", { closed: false, timeOpen: "10:00", timeClose: "12:00", capacity: 2 });
    events.a = await createEvent(["2026-12-02", "2026-12-05", "2026-12-09", "2026-12-14"], { name: "Calendar A", capacity: 4 });
    events.b = await createEvent(["2026-12-02"], { name: "Calendar B" });
    events.c = await createEvent(["2026-12-03", "2026-12-12"], { name: "Calendar C", capacity: 3 });

    await sell(5, { ticketDate: "2026-12-02" });
    await sell(2, { ticketDate: "2026-12-02", eventId: events.a });
    await sell(1, { ticketDate: "2026-12-02", eventId: events.b });
    await sell(4, { ticketDate: "2026-12-03", entryTime: "10:00" });
    await sell(2, { ticketDate: "2026-12-03", eventId: events.c });
    await sell(3, { ticketDate: "2026-12-04", entryTime: "10:00" });
    await sell(4, { ticketDate: "2026-12-05" });
    await sell(4, { ticketDate: "2026-12-05", eventId: events.a });
    await sell(1, { ticketDate: "2026-12-09", eventId: events.a });
    await sell(3, { ticketDate: "2026-12-10" });
    await sell(2, { ticketDate: "2026-12-11", entryTime: "10:00" });
    await sell(2, { ticketDate: "2026-12-11", entryTime: "10:30" });
    await sell(4, { ticketDate: "2026-12-12" });
    await sell(2, { ticketDate: "2026-12-12", eventId: events.c });
    await sell(2, { ticketDate: "2026-12-14" });
    await sell(6, { ticketDate: "2026-12-16" });
    await sell(4, { ticketDate: "2026-12-17", entryTime: "10:00" });
    await sell(4, { ticketDate: "2026-12-17", entryTime: "10:30" });
    await sell(4, { ticketDate: "2026-12-18", entryTime: "11:00" });
    await sell(2, { ticketDate: "2026-12-18", entryTime: "11:30" });
    await sell(4, { ticketDate: "2026-12-24", entryTime: "10:00" });
    await sell(4, { ticketDate: "2026-12-24", entryTime: "11:00" });
    await sell(1, { ticketDate: "2026-12-24", entryTime: "11:30" });
  });

  it("answers each date exactly as GET /availability does for it", async () => {
    useClock(AFTER_CLOSING);
    const range = await calendar(`?startDate=${TODAY}&endDate=${LAST}`);
    expect(range.startDate).toBe(TODAY);
    expect(range.endDate).toBe(LAST);
    expect(range.days.map((day) => day.date)).toEqual(Array.from({ length: 24 }, (_, i) => plusDays(TODAY, i)));
    for (const day of range.days) expectSameFigures(day, await availability(day.date));
  });

  it("gives each product and each day its status", async () => {
    useClock(AFTER_CLOSING);
    const { days } = await calendar(`?startDate=${TODAY}&endDate=${LAST}`);
    const byDate = new Map(days.map((day) => [day.date, day]));
    // [date, the day's status, general admission's, each event's by name]
    const expected: [string, Status, Status, Status[]][] = [
      ["2026-12-01", "closed", "closed", []], // today, after closing: open by the hours, nothing sold any more
      ["2026-12-02", "available", "available", ["available", "available"]], // 5 of 10 and 2 of 4 left: exactly half is not limited; B unlimited
      ["2026-12-03", "available", "available", ["limited"]], // 12 of the slots' 16; C: 1 of 3
      ["2026-12-04", "available", "available", []], // timed with a capacity: 3 of the day's 6
      ["2026-12-05", "sold-out", "sold-out", ["sold-out"]],
      ["2026-12-06", "closed", "closed", []],
      ["2026-12-07", "closed", "closed", []],
      ["2026-12-08", "available", "available", []], // no limit
      ["2026-12-09", "available", "closed", ["available"]], // closed by exception, A still sold: 3 of 4
      ["2026-12-10", "available", "available", []], // special hours without a capacity
      ["2026-12-11", "limited", "limited", []], // 2 of the day's 6
      ["2026-12-12", "limited", "sold-out", ["limited"]],
      ["2026-12-13", "closed", "closed", []],
      ["2026-12-14", "available", "sold-out", ["available"]], // the exception's capacity of 2 sold
      ["2026-12-15", "available", "available", []],
      ["2026-12-16", "limited", "limited", []], // 4 of 10
      ["2026-12-17", "available", "available", []], // 8 of the slots' 16: exactly half
      ["2026-12-18", "sold-out", "sold-out", []], // the day's 6 sold, slots with room left
      ["2026-12-19", "available", "available", []],
      ["2026-12-20", "closed", "closed", []],
      ["2026-12-21", "closed", "closed", []],
      ["2026-12-22", "available", "available", []],
      ["2026-12-23", "available", "available", []],
      ["2026-12-24", "limited", "limited", []], // 7 of the slots' 16
    ];
    expect(days).toHaveLength(expected.length);
    for (const [date, status, general, eventStatuses] of expected) {
      const day = byDate.get(date)!;
      expect({ date, status: day.status, general: day.general.status, events: day.events.map((e) => e.status) }).toEqual({
        date,
        status,
        general,
        events: eventStatuses,
      });
    }
    expect(byDate.get("2026-12-02")!.events).toEqual([
      { eventId: events.a, name: "Calendar A", status: "available", capacity: 4, available: 2 },
      { eventId: events.b, name: "Calendar B", status: "available", capacity: null, available: null },
    ]);
    expect(byDate.get("2026-12-01")!.general).toEqual({ status: "closed", capacity: null, available: 0 });
    expect(byDate.get("2026-12-03")!.general).toEqual({ status: "available", capacity: null, available: 12 });
    expect(byDate.get("2026-12-10")!.general).toEqual({ status: "available", capacity: null, available: null });
    expect(byDate.get("2026-12-11")!.general).toEqual({ status: "limited", capacity: 6, available: 2 });
    expect(byDate.get("2026-12-16")!.general).toEqual({ status: "limited", capacity: 10, available: 4 });
  });

  it("is the same figures whether the day is read alone or within a range", async () => {
    useClock(AFTER_CLOSING);
    const alone = await calendar("?startDate=2026-12-12&endDate=2026-12-12");
    const within = (await calendar(`?startDate=${TODAY}&endDate=${LAST}`)).days.find((day) => day.date === "2026-12-12");
    expect(alone.days).toEqual([within]);
  });
});

describe("today on a timed day", () => {
  // Tuesday 2027-01-05: nine slots of two (09:00 … 17:00), no daily capacity: the day sells 18.
  const DAY = "2027-01-05";

  beforeAll(async () => {
    useClock("2027-01-05T12:00:00Z");
    await put(`/v1.1/museum-hours/exceptions/${DAY}`, {
      closed: false,
      timeOpen: "09:00",
      timeClose: "18:00",
      entrySlotMinutes: 60,
      slotCapacity: 2,
    });
  });

  it("counts only the slots not yet ended, and is closed from closing time", async () => {
    // 11:00 in New York: 09:00 and 10:00 have ended, 14 places left of 18.
    useClock("2027-01-05T16:00:00Z");
    let [day] = (await calendar(`?startDate=${DAY}&endDate=${DAY}`)).days;
    expect(day!.general).toEqual({ status: "available", capacity: null, available: 14 });
    expectSameFigures(day!, await availability(DAY));
    // 15:00: six slots have ended, 6 left of 18.
    useClock("2027-01-05T20:00:00Z");
    [day] = (await calendar("")).days;
    expect(day).toMatchObject({ date: DAY, status: "limited", general: { status: "limited", available: 6 } });
    expectSameFigures(day!, await availability(DAY));
    // 18:00: closed.
    useClock("2027-01-05T23:00:00Z");
    [day] = (await calendar("")).days;
    expect(day).toMatchObject({ date: DAY, status: "closed", general: { status: "closed", available: 0 } });
    expectSameFigures(day!, await availability(DAY));
  });
});

describe("the range", () => {
  const NOW = "2027-02-01T15:00:00Z";
  const today = "2027-02-01";
  const calendarOf = (query: string) => api(`/v1.1/availability/calendar${query}`, { as: "sales" });

  it("defaults to today and the 30 days after it, or up to the last day tickets are sold", async () => {
    useClock(NOW);
    let range = await calendar("");
    expect([range.startDate, range.endDate, range.days.length]).toEqual([today, plusDays(today, 30), 31]);
    range = await calendar(`?startDate=${plusDays(today, 10)}`);
    expect([range.startDate, range.endDate, range.days.length]).toEqual([plusDays(today, 10), plusDays(today, 40), 31]);
    range = await calendar(`?startDate=${plusDays(today, 350)}`);
    expect([range.endDate, range.days.length]).toEqual([plusDays(today, 365), 16]);
    range = await calendar(`?startDate=${plusDays(today, 365)}`);
    expect(range.days.map((day) => day.date)).toEqual([plusDays(today, 365)]);
  });

  it("is at most 62 days", async () => {
    useClock(NOW);
    const range = await calendar(`?startDate=${plusDays(today, 5)}&endDate=${plusDays(today, 66)}`);
    expect(range.days).toHaveLength(62);
    expect(range.days.at(-1)!.date).toBe(plusDays(today, 66));
    await expectValidationError(await calendarOf(`?startDate=${plusDays(today, 5)}&endDate=${plusDays(today, 67)}`), "query.endDate");
    await expectValidationError(await calendarOf(`?endDate=${plusDays(today, 62)}`), "query.endDate");
  });

  it("refuses an endDate before startDate, and dates outside today … today + 365, naming the field", async () => {
    useClock(NOW);
    await expectValidationError(await calendarOf(`?startDate=${plusDays(today, 3)}&endDate=${plusDays(today, 2)}`), "query.endDate");
    await expectValidationError(await calendarOf(`?endDate=${plusDays(today, -1)}`), "query.endDate");
    await expectValidationError(await calendarOf(`?startDate=${plusDays(today, -1)}`), "query.startDate");
    await expectValidationError(await calendarOf(`?startDate=${plusDays(today, -1)}&endDate=${today}`), "query.startDate");
    await expectValidationError(await calendarOf(`?startDate=${plusDays(today, 366)}`), "query.startDate");
    await expectValidationError(
      await calendarOf(`?startDate=${plusDays(today, 360)}&endDate=${plusDays(today, 366)}`),
      "query.endDate",
    );
    await expectValidationError(
      await calendarOf(`?startDate=${plusDays(today, -1)}&endDate=${plusDays(today, 400)}`),
      "query.startDate",
      "query.endDate",
    );
  });

  it("refuses malformed dates, naming each", async () => {
    useClock(NOW);
    await expectValidationError(await calendarOf("?startDate=2027-02-30&endDate=tomorrow"), "query.startDate", "query.endDate");
    await expectValidationError(await calendarOf("?startDate=2027-2-03"), "query.startDate");
    await expectValidationError(await calendarOf("?endDate="), "query.endDate");
  });

  it("refuses a query parameter it does not know, naming it, as GET /availability does", async () => {
    useClock(NOW);
    await expectValidationError(await api("/v1.1/availability?days=3", { as: "sales" }), "query.days");
    await expectValidationError(await calendarOf(`?startDate=${today}&endDate=${today}&days=3`), "query.days");
  });
});

describe("who may read it", () => {
  it("is for admin, box-office and sales; a gate gets 403, no account 401", async () => {
    useClock("2027-02-01T15:00:00Z");
    for (const as of ["admin", "boxOffice", "sales"] as const) {
      expect((await calendar("?endDate=2027-02-02", as)).days.map((day) => day.date)).toEqual(["2027-02-01", "2027-02-02"]);
    }
    await expectProblem(await api("/v1.1/availability/calendar", { as: "gate" }), 403);
    await expectProblem(await api("/v1.1/availability/calendar", { as: null }), 401);
  });
});
