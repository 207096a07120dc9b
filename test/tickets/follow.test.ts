// Schedule changes never strand a ticket, and the sales cut-off (contract:
// "After the sale: ticket lifecycle", "Tickets"), through the real Worker and D1.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { useClock } from "../support/clock";
import { api, dumpDatabase, expectProblem, expectValidationError, nextWeekday, plusDays, todayInZone } from "../support/helpers";
import { ticketCodeOf } from "../support/ticket-codes";
import { buy, createEvent, order, type PurchaseResponse } from "./fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);

async function ticket(json: Record<string, unknown>): Promise<PurchaseResponse> {
  const res = await buy({ email: "visitor@example.com", ...json });
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

async function statusOf(ticketId: string): Promise<string> {
  return ((await (await api(`/v1.1/tickets/${ticketId}`)).json()) as { status: string }).status;
}

describe("PATCH /special-events/{id} dropping a date with valid tickets", () => {
  it("is refused (409 with affectedTickets and dates) and changes nothing", async () => {
    const [a, b, c] = [plusDays(TODAY, 20), plusDays(TODAY, 21), plusDays(TODAY, 22)];
    const eventId = await createEvent([a, b, c]);
    await ticket({ ticketType: "event", eventId, ticketDate: a });
    await ticket({ ticketType: "event", eventId, ticketDate: a });
    await ticket({ ticketType: "event", eventId, ticketDate: b });
    const before = await dumpDatabase({ except: ["login_failures"] });

    const res = await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { name: "Renamed", dates: [c] } });
    const problem = await expectProblem(res, 409);
    expect(problem).toMatchObject({ type: "/problems/tickets-affected", affectedTickets: 3, dates: [a, b] });
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
  });

  it("keeps dates that have tickets untouched when others are added or dropped, and renames", async () => {
    const [a, b] = [plusDays(TODAY, 30), plusDays(TODAY, 31)];
    const eventId = await createEvent([a, b]);
    await ticket({ ticketType: "event", eventId, ticketDate: a });
    const res = await api(`/v1.1/special-events/${eventId}`, {
      method: "PATCH",
      json: { name: "Kept date", dates: [a, plusDays(TODAY, 40)] },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "Kept date", dates: [a, plusDays(TODAY, 40)] });
    const listed = (await (await api(`/v1.1/special-events?startDate=${a}&endDate=${a}`)).json()) as { eventId: string; name: string }[];
    expect(listed.find((e) => e.eventId === eventId)?.name).toBe("Kept date");
  });

  it("with ?cancelTickets=true changes the dates and cancels those tickets: new image ETag, no admission", async () => {
    const eventId = await createEvent([TODAY, plusDays(TODAY, 1)]);
    const sold = await ticket({ ticketType: "event", eventId, ticketDate: TODAY });
    const image = await api(`/v1.1/tickets/${sold.ticketId}/qr`, { as: "sales" });
    const etag = image.headers.get("ETag")!;
    expect((await api(`/v1.1/tickets/${sold.ticketId}/qr`, { as: "sales", headers: { "If-None-Match": etag } })).status).toBe(304);

    const res = await api(`/v1.1/special-events/${eventId}?cancelTickets=true`, {
      method: "PATCH",
      json: { dates: [plusDays(TODAY, 1)] },
    });
    expect(res.status).toBe(200);
    expect(await statusOf(sold.ticketId)).toBe("cancelled");

    const after = await api(`/v1.1/tickets/${sold.ticketId}/qr`, { as: "sales", headers: { "If-None-Match": etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get("ETag")).not.toBe(etag);

    const code = await ticketCodeOf(sold.ticketId);
    const admission = await expectProblem(await api("/v1.1/admissions", { method: "POST", as: "gate", json: { code } }), 409);
    expect(admission.type).toBe("/problems/ticket-cancelled");
  });

  it("refuses a malformed cancelTickets", async () => {
    const eventId = await createEvent([plusDays(TODAY, 50)]);
    const res = await api(`/v1.1/special-events/${eventId}?cancelTickets=yes`, { method: "PATCH", json: { price: 3 } });
    await expectValidationError(res, "query.cancelTickets");
  });
});

describe("closing a day with valid general tickets", () => {
  it("is refused (409) and changes nothing; event tickets of the day never count", async () => {
    const day = nextWeekday(plusDays(TODAY, 10), 3);
    const general = await ticket({ ticketType: "general", ticketDate: day });
    const eventId = await createEvent([day]);
    const eventTicket = await ticket({ ticketType: "event", eventId, ticketDate: day });
    const before = await dumpDatabase({ except: ["login_failures"] });

    const res = await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: { closed: true, reason: "Burst pipe" } });
    expect(await expectProblem(res, 409)).toMatchObject({ affectedTickets: 1, dates: [day] });
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);

    const closed = await api(`/v1.1/museum-hours/exceptions/${day}?cancelTickets=true`, {
      method: "PUT",
      json: { closed: true, reason: "Burst pipe" },
    });
    expect(closed.status).toBe(201);
    expect(await statusOf(general.ticketId)).toBe("cancelled");
    expect(await statusOf(eventTicket.ticketId)).toBe("valid");
  });

  it("special hours on a day with tickets are fine; removing them from a day the week keeps closed is refused", async () => {
    const saturday = nextWeekday(plusDays(TODAY, 10), 6);
    const opened = await api(`/v1.1/museum-hours/exceptions/${saturday}`, {
      method: "PUT",
      json: { closed: false, timeOpen: "10:00", timeClose: "14:00" },
    });
    expect(opened.status).toBe(201);
    await ticket({ ticketType: "general", ticketDate: saturday });
    const shorter = await api(`/v1.1/museum-hours/exceptions/${saturday}`, {
      method: "PUT",
      json: { closed: false, timeOpen: "11:00", timeClose: "13:00" },
    });
    expect(shorter.status).toBe(200);
    const removed = await api(`/v1.1/museum-hours/exceptions/${saturday}`, { method: "DELETE" });
    expect(await expectProblem(removed, 409)).toMatchObject({ affectedTickets: 1, dates: [saturday] });
  });
});

describe("a change after which a timed ticket could no longer be admitted on its day", () => {
  // Timed days 09:00–18:00 in slots of 60 minutes; the gate admits nobody from closing on.
  const TIMED = { closed: false, timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 60, slotCapacity: 10 };
  const setDay = (date: string, json: Record<string, unknown>, query = "") =>
    api(`/v1.1/museum-hours/exceptions/${date}${query}`, { method: "PUT", json });

  async function timedDay(daysAhead: number): Promise<string> {
    const date = plusDays(TODAY, daysAhead);
    expect((await setDay(date, TIMED)).status).toBe(201);
    return date;
  }

  async function cancellationOf(ticketId: string): Promise<{ status: string; cancellation?: { source: string } }> {
    return (await (await api(`/v1.1/tickets/${ticketId}`)).json()) as { status: string; cancellation?: { source: string } };
  }

  it("timed entry off and the closing before a ticket's entry time is 409 tickets-affected; cancelTickets cancels that ticket only", async () => {
    const date = await timedDay(40);
    const late = await ticket({ ticketType: "general", ticketDate: date, entryTime: "16:00" });
    const early = await ticket({ ticketType: "general", ticketDate: date, entryTime: "10:00" });
    const eventId = await createEvent([date]);
    const eventTicket = await ticket({ ticketType: "event", eventId, ticketDate: date });
    const untimedShorter = { closed: false, timeOpen: "09:00", timeClose: "15:00" };
    const before = await dumpDatabase({ except: ["login_failures"] });

    const problem = await expectProblem(await setDay(date, untimedShorter), 409);
    expect(problem).toMatchObject({ type: "/problems/tickets-affected", affectedTickets: 1, dates: [date] });
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);

    expect((await setDay(date, untimedShorter, "?cancelTickets=true")).status).toBe(200);
    expect(await cancellationOf(late.ticketId)).toMatchObject({ status: "cancelled", cancellation: { source: "schedule-change" } });
    expect(await statusOf(early.ticketId)).toBe("valid");
    expect(await statusOf(eventTicket.ticketId)).toBe("valid");
  });

  it("a closing moved to exactly a ticket's entry time strands it, timed entry off or on; a minute later keeps it", async () => {
    const date = await timedDay(41);
    const sold = await ticket({ ticketType: "general", ticketDate: date, entryTime: "16:00" });
    const untimedUntil = (timeClose: string) => ({ closed: false, timeOpen: "09:00", timeClose });
    expect(await expectProblem(await setDay(date, untimedUntil("16:00")), 409)).toMatchObject({ affectedTickets: 1, dates: [date] });
    expect(await expectProblem(await setDay(date, { ...TIMED, timeClose: "16:00" }), 409)).toMatchObject({ affectedTickets: 1, dates: [date] });
    expect((await setDay(date, untimedUntil("16:01"))).status).toBe(200);
    expect((await setDay(date, { ...TIMED, timeClose: "17:00" })).status).toBe(200);
    expect(await statusOf(sold.ticketId)).toBe("valid");
  });

  it("counts a live held ticket: cancelTickets releases its order whole", async () => {
    const date = await timedDay(42);
    const res = await order({ holdMinutes: 10, tickets: [{ ticketType: "general", ticketDate: date, entryTime: "17:00" }, { ticketType: "general", ticketDate: date, entryTime: "09:00" }] });
    expect(res.status, await res.clone().text()).toBe(201);
    const held = (await res.json()) as { orderId: string };
    const untimedShorter = { closed: false, timeOpen: "09:00", timeClose: "17:00" };
    expect(await expectProblem(await setDay(date, untimedShorter), 409)).toMatchObject({ affectedTickets: 1, dates: [date] });
    expect((await setDay(date, untimedShorter, "?cancelTickets=true")).status).toBe(200);
    expect(((await (await api(`/v1.1/orders/${held.orderId}`)).json()) as { status: string }).status).toBe("released");
  });

  it("removing an exception: the week's closing before a ticket's entry time is 409", async () => {
    // A Monday: the week opens it 09:00–18:00 without timed entry.
    const monday = nextWeekday(plusDays(TODAY, 50), 1);
    expect((await setDay(monday, { ...TIMED, timeClose: "20:00" })).status).toBe(201);
    await ticket({ ticketType: "general", ticketDate: monday, entryTime: "18:00" });
    const removed = await api(`/v1.1/museum-hours/exceptions/${monday}`, { method: "DELETE" });
    expect(await expectProblem(removed, 409)).toMatchObject({ type: "/problems/tickets-affected", affectedTickets: 1, dates: [monday] });
    const kept = await api(`/v1.1/museum-hours/exceptions?startDate=${monday}&endDate=${monday}`);
    expect(await kept.json()).toMatchObject([{ date: monday, timeClose: "20:00", entrySlotMinutes: 60 }]);
  });

  it("the weekly schedule: timed entry off and an earlier closing under a timed ticket is 409; a date its exception decides is untouched", async () => {
    const week = (await (await api("/v1.1/museum-hours/schedule")).json()) as Record<string, unknown>;
    const putWeek = (json: unknown, query = "") => api(`/v1.1/museum-hours/schedule${query}`, { method: "PUT", json });
    const { closed: _, ...timedTuesday } = TIMED;
    expect((await putWeek({ ...week, tuesday: timedTuesday })).status).toBe(200);
    const tuesday = nextWeekday(plusDays(TODAY, 60), 2);
    const stranded = await ticket({ ticketType: "general", ticketDate: tuesday, entryTime: "16:00" });
    const kept = await ticket({ ticketType: "general", ticketDate: tuesday, entryTime: "11:00" });
    const byException = plusDays(tuesday, 7);
    expect((await setDay(byException, TIMED)).status).toBe(201);
    const other = await ticket({ ticketType: "general", ticketDate: byException, entryTime: "16:00" });

    const shorter = { ...week, tuesday: { timeOpen: "09:00", timeClose: "15:00" } };
    const problem = await expectProblem(await putWeek(shorter), 409);
    expect(problem).toMatchObject({ type: "/problems/tickets-affected", affectedTickets: 1, dates: [tuesday] });
    expect(((await (await api("/v1.1/museum-hours/schedule")).json()) as { tuesday: unknown }).tuesday).toEqual(timedTuesday);

    expect((await putWeek(shorter, "?cancelTickets=true")).status).toBe(200);
    expect(await cancellationOf(stranded.ticketId)).toMatchObject({ status: "cancelled", cancellation: { source: "schedule-change" } });
    expect([await statusOf(kept.ticketId), await statusOf(other.ticketId)]).toEqual(["valid", "valid"]);
    expect((await putWeek(week)).status).toBe(200);
  });
});

describe("sales cut-off", () => {
  // Far from the real today (other tests use the days after it), on a fixed clock.
  // 2031-01-08 is a Wednesday: open 09:00–18:00 in America/New_York (UTC-5).
  const DAY = "2031-01-08";

  it("sells today's general tickets until closing time, and refuses them after", async () => {
    useClock("2031-01-08T22:59:00Z"); // 17:59 in New York
    expect((await buy({ ticketType: "general", ticketDate: DAY, email: "a@example.com" })).status).toBe(201);
    useClock("2031-01-08T23:00:00Z"); // 18:00: closed
    await expectValidationError(await buy({ ticketType: "general", ticketDate: DAY, email: "a@example.com" }), "ticketDate");
    // Tomorrow is still on sale.
    expect((await buy({ ticketType: "general", ticketDate: "2031-01-09", email: "a@example.com" })).status).toBe(201);
  });

  it("follows the day's special hours", async () => {
    const day = "2031-01-15";
    useClock("2031-01-15T12:00:00Z");
    const put = await api(`/v1.1/museum-hours/exceptions/${day}`, {
      method: "PUT",
      json: { closed: false, timeOpen: "09:00", timeClose: "20:00" },
    });
    expect(put.status).toBe(201);
    useClock("2031-01-16T00:30:00Z"); // 19:30 on the 15th in New York
    expect((await buy({ ticketType: "general", ticketDate: day, email: "a@example.com" })).status).toBe(201);
    useClock("2031-01-16T01:00:00Z"); // 20:00
    await expectValidationError(await buy({ ticketType: "general", ticketDate: day, email: "a@example.com" }), "ticketDate");
  });

  it("sells today's event tickets all day", async () => {
    useClock("2031-01-08T12:00:00Z");
    const eventId = await createEvent([DAY]);
    useClock("2031-01-09T04:30:00Z"); // 23:30 on the 8th in New York
    expect((await buy({ ticketType: "event", eventId, ticketDate: DAY, email: "a@example.com" })).status).toBe(201);
  });
});
