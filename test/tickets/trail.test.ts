// The cancellation trail of changes made by the museum (contract:
// "Cancellation at the box office", last items): each cancelled ticket says
// which change cancelled it and refunds its full price; admitted and past
// tickets keep their state. Through the real Worker and D1.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { useClock } from "../support/clock";
import { api, plusDays, todayInZone } from "../support/helpers";
import { ticketCodeOf } from "../support/ticket-codes";
import { buy, createEvent, type PurchaseResponse, type TicketStatusJson } from "./fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);
const YESTERDAY = plusDays(TODAY, -1);
let nextDay = 300;
const freshDay = () => plusDays(TODAY, nextDay++);

async function ticket(json: Record<string, unknown>): Promise<PurchaseResponse> {
  const res = await buy({ email: "visitor@example.com", ...json });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

async function statusOf(ticketId: string): Promise<TicketStatusJson> {
  return (await (await api(`/v1.1/tickets/${ticketId}`)).json()) as TicketStatusJson;
}

async function setDay(date: string, plan: Record<string, unknown>, query = "") {
  const res = await api(`/v1.1/museum-hours/exceptions/${date}${query}`, { method: "PUT", json: plan });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

/** A ticket sold yesterday for yesterday (the clock set back for the sale). */
async function pastEventTicket(eventId: string): Promise<PurchaseResponse> {
  useClock(`${YESTERDAY}T17:00:00Z`);
  try {
    return await ticket({ ticketType: "event", eventId, ticketDate: YESTERDAY });
  } finally {
    vi.useRealTimers();
  }
}

describe("tickets cancelled by the museum", () => {
  it("say which change cancelled them, refunding the full price", async () => {
    const [a, b] = [freshDay(), freshDay()];
    const deleted = await createEvent([a], { price: 12.5 });
    const byDeletion = await ticket({ ticketType: "event", eventId: deleted, ticketDate: a });
    expect((await api(`/v1.1/special-events/${deleted}`, { method: "DELETE" })).status).toBe(204);

    const moved = await createEvent([a, b], { price: 7.25 });
    const byDate = await ticket({ ticketType: "event", eventId: moved, ticketDate: a });
    expect((await api(`/v1.1/special-events/${moved}?cancelTickets=true`, { method: "PATCH", json: { dates: [b] } })).status).toBe(200);

    const closed = freshDay();
    await setDay(closed, { closed: false, timeOpen: "09:00", timeClose: "18:00" });
    const byClosure = await ticket({ ticketType: "general", ticketDate: closed });
    await setDay(closed, { closed: true }, "?cancelTickets=true");

    const timed = freshDay();
    await setDay(timed, { closed: false, timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 60, slotCapacity: 5 });
    const bySlots = await ticket({ ticketType: "general", ticketDate: timed, entryTime: "10:00" });
    await setDay(timed, { closed: false, timeOpen: "09:30", timeClose: "18:00", entrySlotMinutes: 60, slotCapacity: 5 }, "?cancelTickets=true");

    const expected: [PurchaseResponse, string, number][] = [
      [byDeletion, "event-deleted", 12.5],
      [byDate, "date-removed", 7.25],
      [byClosure, "closure", 25],
      [bySlots, "schedule-change", 25],
    ];
    for (const [sold, source, amount] of expected) {
      const status = await statusOf(sold.ticketId);
      expect(status).toMatchObject({ status: "cancelled", price: amount, cancellation: { source, refund: { amount } } });
      expect(status.cancellation).not.toHaveProperty("reason");
    }
  });

  it("leave past and admitted tickets as they are", async () => {
    const later = freshDay();
    const eventId = await createEvent([YESTERDAY, TODAY, later]);
    const past = await pastEventTicket(eventId);
    const admitted = await ticket({ ticketType: "event", eventId, ticketDate: TODAY });
    const code = await ticketCodeOf(admitted.ticketId);
    expect((await api("/v1.1/admissions", { method: "POST", as: "gate", json: { code } })).status).toBe(201);
    const future = await ticket({ ticketType: "event", eventId, ticketDate: later });

    // Dropping yesterday strands no ticket: the past one stays valid, and no 409.
    const dropped = await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { dates: [TODAY, later] } });
    expect(dropped.status, await dropped.clone().text()).toBe(200);
    expect((await statusOf(past.ticketId)).status).toBe("valid");

    expect((await api(`/v1.1/special-events/${eventId}`, { method: "DELETE" })).status).toBe(204);
    expect((await statusOf(past.ticketId)).status).toBe("valid");
    expect((await statusOf(admitted.ticketId)).status).toBe("admitted");
    expect((await statusOf(future.ticketId)).cancellation?.source).toBe("event-deleted");
  });
});
