// The rules between fields (src/http/field-rules.ts): stated in the served
// document as JSON Schema, and checked by the server with a 400 naming each
// field with the rule's own message.
import { beforeAll, describe, expect, it } from "vitest";
import { api, dumpDatabase, expectValidationError } from "../support/helpers";

type Schemas = Record<string, Record<string, unknown>>;
let schemas: Schemas;
beforeAll(async () => {
  schemas = ((await (await api("/v1.1/openapi.json", { as: null })).json()) as { components: { schemas: Schemas } }).components.schemas;
});

const LINE_VARIANTS = [
  { properties: { ticketType: { const: "general" }, eventId: false }, required: ["ticketType"] },
  { properties: { ticketType: { const: "event" }, entryTime: false }, required: ["ticketType", "eventId"] },
];
const TIMED_ENTRY = { entrySlotMinutes: ["slotCapacity"], slotCapacity: ["entrySlotMinutes"] };

describe("the served document states them", () => {
  it("a ticket line's eventId and entryTime by ticketType (oneOf)", () => {
    expect(schemas.BuyMuseumTicketsRequest!.oneOf).toEqual(LINE_VARIANTS);
    expect(schemas.TicketLine!.oneOf).toEqual(LINE_VARIANTS);
  });

  it("an order's email unless holdMinutes (oneOf), a confirmation's phone only with email (dependentRequired)", () => {
    expect(schemas.OrderRequest!.oneOf).toEqual([{ required: ["holdMinutes"] }, { required: ["email"], properties: { holdMinutes: false } }]);
    expect(schemas.OrderConfirmationRequest!.dependentRequired).toEqual({ phone: ["email"] });
  });

  it("an hours exception's times and limits by closed (oneOf), timed entry's two fields together (dependentRequired)", () => {
    expect(schemas.PutHoursExceptionRequest!.oneOf).toEqual([
      {
        properties: { closed: { const: true }, timeOpen: false, timeClose: false, capacity: false, entrySlotMinutes: false, slotCapacity: false },
        required: ["closed"],
      },
      { properties: { closed: { const: false } }, required: ["closed", "timeOpen", "timeClose"] },
    ]);
    expect(schemas.PutHoursExceptionRequest!.dependentRequired).toEqual(TIMED_ENTRY);
    expect(schemas.OpeningHours!.dependentRequired).toEqual(TIMED_ENTRY);
  });
});

/** Sends the request and asserts a 400 with exactly these errors, and no write. */
async function expectErrors(send: () => Promise<Response>, errors: { path: string; message: string }[]) {
  const before = await dumpDatabase();
  const problem = await expectValidationError(await send(), ...errors.map((error) => error.path));
  expect(problem.errors).toEqual(expect.arrayContaining(errors));
  expect(await dumpDatabase()).toBe(before);
}

const DAY = "2090-01-01";
const exception = (json: unknown) => () => api(`/v1.1/museum-hours/exceptions/${DAY}`, { method: "PUT", json });

describe("the server checks them, naming each field", () => {
  it("ticket lines", async () => {
    const general = { ticketType: "general", ticketDate: DAY, email: "a@example.com" };
    await expectErrors(() => api("/v1.1/tickets", { method: "POST", json: { ...general, eventId: crypto.randomUUID() } }), [
      { path: "eventId", message: "Must be left out for general tickets." },
    ]);
    await expectErrors(() => api("/v1.1/tickets", { method: "POST", json: { ...general, ticketType: "event", entryTime: "10:00" } }), [
      { path: "eventId", message: "Required for event tickets." },
      { path: "entryTime", message: "Must be left out for event tickets." },
    ]);
    await expectErrors(() => api("/v1.1/orders", { method: "POST", json: { email: "a@example.com", tickets: [{ ticketType: "event", ticketDate: DAY }] } }), [
      { path: "tickets[0].eventId", message: "Required for event tickets." },
    ]);
  });

  it("an order's email, a confirmation's phone", async () => {
    await expectErrors(() => api("/v1.1/orders", { method: "POST", json: { tickets: [{ ticketType: "general", ticketDate: DAY }] } }), [
      { path: "email", message: "Required unless the order is held (holdMinutes)." },
    ]);
    await expectErrors(() => api(`/v1.1/orders/${crypto.randomUUID()}/confirmation`, { method: "POST", json: { phone: "+1 234 567" } }), [
      { path: "email", message: "Required with phone: the buyer's contact is given whole." },
    ]);
  });

  it("an hours exception; a field refused by one rule counts as left out for the others", async () => {
    await expectErrors(exception({ closed: true, entrySlotMinutes: 30 }), [{ path: "entrySlotMinutes", message: "Must be left out when closed is true." }]);
    await expectErrors(exception({ closed: true, timeClose: "18:00", capacity: 5 }), [
      { path: "timeClose", message: "Must be left out when closed is true." },
      { path: "capacity", message: "Must be left out when closed is true." },
    ]);
    await expectErrors(exception({ closed: false, timeOpen: "09:00", timeClose: "18:00", slotCapacity: 5 }), [
      { path: "entrySlotMinutes", message: "Required with slotCapacity." },
    ]);
    await expectErrors(exception({ closed: false, entrySlotMinutes: 30 }), [
      { path: "timeOpen", message: "Required when closed is false." },
      { path: "timeClose", message: "Required when closed is false." },
      { path: "slotCapacity", message: "Required with entrySlotMinutes." },
    ]);
  });
});
