import type { Schemas } from "museum-api-client";
import { expect } from "vitest";
import { type AccountKey, api } from "../support/helpers";

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

export function buy(json: unknown, options: { as?: AccountKey; key?: string } = {}) {
  return api("/v1.1/tickets", {
    method: "POST",
    as: options.as ?? "sales",
    json,
    headers: options.key === undefined ? {} : { "Idempotency-Key": options.key },
  });
}

/** Sends `POST /orders`. */
export function order(json: unknown, options: { as?: AccountKey; key?: string; headers?: Record<string, string> } = {}) {
  return api("/v1.1/orders", {
    method: "POST",
    as: options.as ?? "sales",
    json,
    headers: { ...options.headers, ...(options.key === undefined ? {} : { "Idempotency-Key": options.key }) },
  });
}

/** Sends a box-office cancellation of a ticket (`/tickets/{id}`) or an order (`/orders/{id}`). */
export function cancel(
  resource: string,
  json: unknown = {},
  options: { as?: AccountKey; key?: string; headers?: Record<string, string> } = {},
) {
  return api(`/v1.1${resource}/cancellation`, {
    method: "POST",
    as: options.as ?? "sales",
    json,
    headers: { ...options.headers, ...(options.key === undefined ? {} : { "Idempotency-Key": options.key }) },
  });
}

/** The answers of orders and of a ticket's status, as the served document (and so the typed client) types them. */
export type OrderResponse = Schemas["Order"];
export type TicketStatusJson = Schemas["TicketStatus"];
export type OrderStatusJson = Schemas["OrderStatus"];
