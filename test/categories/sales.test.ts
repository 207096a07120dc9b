// Ticket categories in sales (contract: "Ticket categories and their
// prices", "Prices and money", "Orders", "Cancellation at the box office"):
// the price recorded by category, the accompanied rule, the category on the
// ticket, availability's prices, the summary's counts, through the real
// Worker and D1.
import { describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, expectValidationError, testDays } from "../support/helpers";
import { buy, cancel, createEvent, order, type OrderResponse, type TicketStatusJson } from "../tickets/fixtures";

const { openDay } = testDays(120);
const BUYER = { email: "family@example.com" };

async function putCategory(categoryId: string, body: Record<string, unknown>) {
  const res = await api(`/v1.1/ticket-categories/${categoryId}`, { method: "PUT", json: body });
  expect([200, 201], await res.clone().text()).toContain(res.status);
}

// The local sample data's categories, made here.
await putCategory("child", { name: "Child", price: 0, accompanied: true, unitType: "CHILD" });
await putCategory("concession", { name: "Concession", price: 15, unitType: "STUDENT" });
await putCategory("member", { name: "Member", price: 0 });

const general = (ticketDate: string, more: Record<string, unknown> = {}) => ({ ticketType: "general", ticketDate, ...more });
const eventLine = (eventId: string, ticketDate: string, more: Record<string, unknown> = {}) => ({ ticketType: "event", eventId, ticketDate, ...more });

async function sold(json: unknown, key?: string): Promise<OrderResponse> {
  const res = await order(json, key === undefined ? {} : { key });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as OrderResponse;
}

async function status(ticketId: string): Promise<TicketStatusJson> {
  const res = await api(`/v1.1/tickets/${ticketId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TicketStatusJson;
}

describe("a purchase without a category (1.1.1)", () => {
  it("is the default category's, at its price, and POST /tickets answers in the 1.1.1 shape", async () => {
    const day = await openDay();
    const res = await buy({ ...general(day), ...BUYER });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["confirmationCode", "message", "ticketDate", "ticketId", "ticketType"]);
    expect(await status(body.ticketId as string)).toMatchObject({ category: "adult", price: 25 });
  });
});

describe("the price recorded", () => {
  it("is the category's for a general ticket, the event's per category else the event's price; the order shows category, price and total", async () => {
    const day = await openDay();
    const eventId = await createEvent([day], { price: 12.5, categoryPrices: { child: 2.5, concession: 10 } });
    const body = await sold({
      ...BUYER,
      tickets: [
        general(day),
        general(day, { category: "child" }),
        general(day, { category: "concession" }),
        eventLine(eventId, day, { category: "adult" }),
        eventLine(eventId, day, { category: "child" }),
        eventLine(eventId, day, { category: "member" }),
      ],
    });
    expect(body.tickets.map((t) => [t.category, t.price])).toEqual([
      ["adult", 25],
      ["child", 0],
      ["concession", 15],
      ["adult", 12.5],
      ["child", 2.5],
      ["member", 12.5],
    ]);
    expect(body.totalPrice).toBe(67.5);
    const statuses = await Promise.all(body.tickets.map((t) => status(t.ticketId)));
    expect(statuses.map((s) => [s.category, s.price])).toEqual(body.tickets.map((t) => [t.category, t.price]));
  });

  it("never changes after a price change, and a refund is the recorded price", async () => {
    const day = await openDay();
    await putCategory("zz-senior", { name: "Senior", price: 18.5, unitType: "SENIOR" });
    const eventId = await createEvent([day], { price: 30, categoryPrices: { "zz-senior": 20 } });
    const before = await sold({ ...BUYER, tickets: [general(day, { category: "zz-senior" }), eventLine(eventId, day, { category: "zz-senior" })] });
    await putCategory("zz-senior", { name: "Senior", price: 19.99, unitType: "SENIOR" });
    expect((await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { categoryPrices: { "zz-senior": 21 } } })).status).toBe(200);
    const after = await sold({ ...BUYER, tickets: [general(day, { category: "zz-senior" }), eventLine(eventId, day, { category: "zz-senior" })] });
    expect(after.tickets.map((t) => t.price)).toEqual([19.99, 21]);
    expect((await Promise.all(before.tickets.map((t) => status(t.ticketId)))).map((s) => s.price)).toEqual([18.5, 20]);
    const res = await cancel(`/tickets/${before.tickets[0]!.ticketId}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { refund: { amount: number } }).refund).toEqual({ amount: 18.5 });
  });

  it("is replayed for an Idempotency-Key exactly as first answered", async () => {
    const day = await openDay();
    const key = crypto.randomUUID();
    const json = { ...BUYER, tickets: [general(day, { category: "concession" }), general(day)] };
    const first = await order(json, { key });
    expect(first.status).toBe(201);
    const firstText = await first.text();
    const again = await order(json, { key });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(firstText);
    expect(JSON.parse(firstText)).toMatchObject({ totalPrice: 40, tickets: [{ category: "concession", price: 15 }, { category: "adult", price: 25 }] });
  });
});

describe("an unknown, retired or malformed category", () => {
  it("is 400 naming the field, on POST /tickets and on an order's line, and sells nothing", async () => {
    const day = await openDay();
    await putCategory("zz-gone", { name: "Gone", price: 1 });
    expect((await api("/v1.1/ticket-categories/zz-gone", { method: "DELETE" })).status).toBe(204);
    const before = await dumpDatabase({ except: ["login_failures"] });
    for (const category of ["zz-nobody", "zz-gone"]) {
      await expectValidationError(await buy({ ...general(day, { category }), ...BUYER }), "category");
      const refused = await expectValidationError(
        await order({ ...BUYER, tickets: [general(day), general(day, { category })] }),
        "tickets[1].category",
      );
      expect(refused).toMatchObject({ line: 1 });
    }
    await expectValidationError(await buy({ ...general(day, { category: "Adult" }), ...BUYER }), "category");
    await expectValidationError(await buy({ ...general(day, { category: "a".repeat(21) }), ...BUYER }), "category");
    await expectValidationError(await buy({ ...general(day, { category: 7 }), ...BUYER }), "category");
    await expectValidationError(await order({ ...BUYER, tickets: [general(day, { category: "" })] }), "tickets[0].category");
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
  });
});

describe("the accompanied rule", () => {
  it("refuses an accompanied ticket bought alone (400 accompaniment-required)", async () => {
    const day = await openDay();
    const problem = await expectProblem(await buy({ ...general(day, { category: "child" }), ...BUYER }), 400);
    expect(problem.type).toBe("/problems/accompaniment-required");
  });

  it("refuses an order whose accompanied line has no companion there, naming the line", async () => {
    const day = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const eventId = await createEvent([day]);
    const before = await dumpDatabase({ except: ["login_failures"] });
    const cases: [Record<string, unknown>[], number][] = [
      [[general(day, { entryTime: "10:00", category: "child" })], 0],
      // A companion in another slot, for the event, or itself accompanied is no companion.
      [[general(day, { entryTime: "10:00" }), general(day, { entryTime: "11:00", category: "child" })], 1],
      [[eventLine(eventId, day), general(day, { entryTime: "10:00", category: "child" })], 1],
      [[general(day, { entryTime: "10:00", category: "child" }), general(day, { entryTime: "10:00", category: "child" })], 0],
    ];
    for (const [tickets, line] of cases) {
      const problem = await expectProblem(await order({ ...BUYER, tickets }), 400);
      expect(problem).toMatchObject({ type: "/problems/accompaniment-required", line });
    }
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
  });

  it("reports an invalid field before an accompanied line alone", async () => {
    const day = await openDay();
    const problem = await expectValidationError(
      await order({ ...BUYER, tickets: [general(day, { category: "child" }), general(day, { category: "zz-nobody" })] }),
      "tickets[1].category",
    );
    expect(problem.type).toBe("/problems/validation-error");
  });

  it("sells an accompanied ticket with a companion for the same slot or event; one companion accompanies many", async () => {
    const day = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const eventId = await createEvent([day]);
    const body = await sold({
      ...BUYER,
      tickets: [
        general(day, { entryTime: "10:00", category: "child" }),
        general(day, { entryTime: "10:00", category: "child" }),
        general(day, { entryTime: "10:00", category: "member" }),
        eventLine(eventId, day, { category: "child" }),
        eventLine(eventId, day),
      ],
    });
    expect(body.tickets.map((t) => t.category)).toEqual(["child", "child", "member", "child", "adult"]);
  });
});

describe("a box-office cancellation and accompanied tickets", () => {
  it("refuses to cancel a child's last companion (409), cancels the child first, and always cancels a whole order", async () => {
    const day = await openDay();
    const family = await sold({ ...BUYER, tickets: [general(day), general(day, { category: "child" }), general(day, { category: "child" })] });
    const [adult, child, sibling] = family.tickets;
    const before = await dumpDatabase({ except: ["login_failures"] });
    const refused = await expectProblem(await cancel(`/tickets/${adult!.ticketId}`), 409);
    expect(refused).toMatchObject({ type: "/problems/accompaniment-required", ticketId: adult!.ticketId });
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
    expect((await cancel(`/tickets/${child!.ticketId}`)).status).toBe(200);
    await expectProblem(await cancel(`/tickets/${adult!.ticketId}`), 409);
    expect((await cancel(`/orders/${family.orderId}`)).status).toBe(200);
    expect((await status(sibling!.ticketId)).status).toBe("cancelled");
    expect((await status(adult!.ticketId)).status).toBe("cancelled");
  });

  it("cancels a companion while another one stays", async () => {
    const day = await openDay();
    const family = await sold({ ...BUYER, tickets: [general(day), general(day, { category: "concession" }), general(day, { category: "child" })] });
    expect((await cancel(`/tickets/${family.tickets[0]!.ticketId}`)).status).toBe(200);
    expect((await expectProblem(await cancel(`/tickets/${family.tickets[1]!.ticketId}`), 409)).type).toBe("/problems/accompaniment-required");
  });
});

describe("GET /availability prices", () => {
  it("lists the active categories by id with their prices, for general entry and per event", async () => {
    const day = await openDay();
    const eventId = await createEvent([day], { price: 12.5, categoryPrices: { child: 3 } });
    const res = await api(`/v1.1/availability?date=${day}`, { as: "sales" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      general: { prices: { category: string; name: string; price: number }[] };
      events: { eventId: string; prices: { category: string; price: number }[] }[];
    };
    const categories = (await (await api("/v1.1/ticket-categories")).json()) as { categoryId: string; name: string; price: number }[];
    expect(body.general.prices).toEqual(categories.map((c) => ({ category: c.categoryId, name: c.name, price: c.price })));
    expect(body.general.prices.find((p) => p.category === "concession")).toEqual({ category: "concession", name: "Concession", price: 15 });
    const event = body.events.find((e) => e.eventId === eventId)!;
    expect(event.prices.map((p) => p.category)).toEqual(categories.map((c) => c.categoryId));
    expect(Object.fromEntries(event.prices.map((p) => [p.category, p.price]))).toMatchObject({ adult: 12.5, child: 3, concession: 12.5 });
  });
});

describe("GET /admissions/summary byCategory", () => {
  it("counts sold, admitted and cancelled per category, general and per event", async () => {
    const day = await openDay();
    const eventId = await createEvent([day], { name: "By category" });
    const body = await sold({
      ...BUYER,
      tickets: [general(day), general(day, { category: "child" }), general(day, { category: "child" }), eventLine(eventId, day, { category: "member" })],
    });
    expect((await cancel(`/tickets/${body.tickets[2]!.ticketId}`)).status).toBe(200);
    const res = await api(`/v1.1/admissions/summary?date=${day}`);
    expect(await res.json()).toEqual({
      date: day,
      general: {
        sold: 3, admitted: 0, cancelled: 1,
        byCategory: { adult: { sold: 1, admitted: 0, cancelled: 0 }, child: { sold: 2, admitted: 0, cancelled: 1 } },
      },
      events: [
        { eventId, name: "By category", sold: 1, admitted: 0, cancelled: 0, byCategory: { member: { sold: 1, admitted: 0, cancelled: 0 } } },
      ],
      conflicts: 0,
    });
  });
});

describe("the ticket image", () => {
  it("is served for a ticket of any category, and its ETag follows the category's name", async () => {
    const day = await openDay();
    await putCategory("zz-renamed", { name: "Student", price: 9 });
    const body = await sold({ ...BUYER, tickets: [general(day, { category: "zz-renamed" })] });
    const first = await api(`/v1.1/tickets/${body.tickets[0]!.ticketId}/qr`, { headers: { "x-d1-bookmark": "first-primary" } });
    expect(first.status).toBe(200);
    await putCategory("zz-renamed", { name: "University student", price: 9 });
    const again = await api(`/v1.1/tickets/${body.tickets[0]!.ticketId}/qr`, { headers: { "x-d1-bookmark": "first-primary" } });
    expect(again.status).toBe(200);
    expect(again.headers.get("ETag")).not.toBe(first.headers.get("ETag"));
  });
});
