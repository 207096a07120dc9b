import { expect } from "vitest";
import { api } from "../support/helpers";

export type PurchaseResponse = {
  message: string;
  ticketId: string;
  ticketType: "general" | "event";
  ticketDate: string;
  confirmationCode: string;
  eventName?: string;
};

/** Creates an event through the API and returns its id. */
export async function createEvent(dates: string[], overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await api("/v1.1/special-events", {
    method: "POST",
    json: {
      name: `Event ${crypto.randomUUID()}`,
      location: "Auditorium",
      eventDescription: "A test event.",
      dates,
      price: 12.5,
      ...overrides,
    },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { eventId: string }).eventId;
}

export function buy(json: unknown, options: { as?: "admin" | "sales"; key?: string } = {}) {
  return api("/v1.1/tickets", {
    method: "POST",
    as: options.as ?? "sales",
    json,
    headers: options.key === undefined ? {} : { "Idempotency-Key": options.key },
  });
}
