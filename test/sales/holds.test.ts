// Holds while the buyer pays (contract: "Holds: places kept while the buyer
// pays"), through the real Worker and D1: a held order, its confirmation
// (late too), its extension, its release, expiry at hold_until exactly (the
// database's clock: tests move hold_until into the past through env.DB), and
// the races.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type AccountKey, api, dumpDatabase, expectProblem, expectValidationError, plusDays, todayInZone, statusCounts, testDays } from "../support/helpers";
import { useClock } from "../support/clock";
import { buy, cancel, createEvent, order } from "../tickets/fixtures";

const { freshDay, openDay } = testDays(60);

const line = (ticketDate: string) => ({ ticketType: "general", ticketDate });

type OrderJson = {
  orderId: string;
  status: string;
  createdAt?: string;
  expiresAt?: string;
  lateConfirmation?: boolean;
  totalPrice: number;
  refund?: { amount: number };
  tickets: { ticketId: string; status: string; expiresAt?: string; price: number; cancellation?: { source: string; refund: { amount: number } }; cancelledAt?: string }[];
};

async function hold(ticketDate: string, lines = 1, holdMinutes = 15, as: AccountKey = "sales"): Promise<OrderJson> {
  const res = await order({ holdMinutes, tickets: Array.from({ length: lines }, () => line(ticketDate)) }, { as });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as OrderJson;
}

function confirm(orderId: string, json?: unknown, options: { as?: AccountKey; key?: string } = {}) {
  return api(`/v1.1/orders/${orderId}/confirmation`, {
    method: "POST",
    as: options.as ?? "sales",
    ...(json === undefined ? {} : { json }),
    headers: options.key === undefined ? {} : { "Idempotency-Key": options.key },
  });
}

function extend(orderId: string, holdMinutes: unknown, as: AccountKey = "sales") {
  return api(`/v1.1/orders/${orderId}/hold`, { method: "POST", as, json: { holdMinutes } });
}

async function getOrder(orderId: string, as: AccountKey = "sales"): Promise<OrderJson> {
  const res = await api(`/v1.1/orders/${orderId}`, { as });
  expect(res.status).toBe(200);
  return (await res.json()) as OrderJson;
}

async function taken(date: string): Promise<{ taken: number; available: number | null }> {
  const res = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
  expect(res.status).toBe(200);
  const { general } = (await res.json()) as { general: { taken: number; available: number | null } };
  return { taken: general.taken, available: general.available };
}

/** The database's clock now (ms since the epoch): what holds are judged by. */
async function databaseNow(): Promise<number> {
  const now = await env.DB.prepare("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now").first<string>("now");
  return Date.parse(now!);
}

/** The museum's clock (`HH:mm`) at the moment `t` (ms since the epoch). */
function museumClock(t: number): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: env.MUSEUM_TIMEZONE, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(t));
}

/** Moves an order's hold into the past, as the database's clock passing expiresAt would. */
async function expire(orderId: string) {
  await env.DB.prepare("UPDATE tickets SET hold_until = '2000-01-01T00:00:00.000Z' WHERE order_id = ?1 AND hold_until IS NOT NULL")
    .bind(orderId)
    .run();
}

/** What the orders table records of an order's state. */
async function recordedStatus(orderId: string): Promise<string | null> {
  return env.DB.prepare("SELECT status FROM orders WHERE order_id = ?1").bind(orderId).first<string>("status");
}

describe("a held order", () => {
  it("keeps its places until expiresAt, without the buyer's contact, and answers held", async () => {
    const date = await openDay({ capacity: 5 });
    const before = Date.now();
    const held = await hold(date, 2, 15);
    expect(held.status).toBe("held");
    expect(held.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const ms = Date.parse(held.expiresAt!) - before;
    expect(ms).toBeGreaterThan(14 * 60_000);
    expect(ms).toBeLessThan(16 * 60_000);
    expect(await taken(date)).toEqual({ taken: 2, available: 3 });

    const status = await getOrder(held.orderId);
    expect(status).toMatchObject({ status: "held", expiresAt: held.expiresAt });
    expect(status.tickets.map((t) => [t.status, t.expiresAt])).toEqual([["held", held.expiresAt], ["held", held.expiresAt]]);

    const ticket = await api(`/v1.1/tickets/${held.tickets[0]!.ticketId}`, { as: "sales" });
    expect(await ticket.json()).toMatchObject({ status: "held", expiresAt: held.expiresAt });
    const qr = await api(`/v1.1/tickets/${held.tickets[0]!.ticketId}/qr`, { as: "sales" });
    const problem = await expectProblem(qr, 409);
    expect(problem.type).toBe("/problems/ticket-held");
  });

  it("is confirmed once the buyer paid: valid tickets at the held prices, the contact given then", async () => {
    const date = await openDay();
    const held = await hold(date, 2);
    await expectValidationError(await confirm(held.orderId, {}), "email");
    await expectValidationError(await confirm(held.orderId), "email");
    const res = await confirm(held.orderId, { email: "buyer@example.com", phone: "+1 555 0100" });
    expect(res.status, await res.clone().text()).toBe(200);
    const confirmed = (await res.json()) as OrderJson;
    expect(confirmed.status).toBe("confirmed");
    expect(confirmed.lateConfirmation).toBeUndefined();
    expect(confirmed.expiresAt).toBeUndefined();
    expect(confirmed.tickets.map((t) => [t.status, t.price])).toEqual([["valid", 25], ["valid", 25]]);
    expect((await api(`/v1.1/tickets/${held.tickets[0]!.ticketId}/qr`, { as: "sales" })).status).toBe(200);

    // Again: the same answer, nothing changes.
    const before = await dumpDatabase();
    const again = await confirm(held.orderId);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(confirmed);
    expect(await dumpDatabase()).toBe(before);
  });

  it("a confirmation is idempotent under its key", async () => {
    const date = await openDay();
    const held = await hold(date);
    const key = crypto.randomUUID();
    const first = await confirm(held.orderId, { email: "buyer@example.com" }, { key });
    expect(first.status).toBe(200);
    const second = await confirm(held.orderId, { email: "buyer@example.com" }, { key });
    expect(second.status).toBe(200);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await second.json()).toEqual(await first.json());
    expect((await confirm(held.orderId, { email: "other@example.com" }, { key })).status).toBe(422);
  });

  it("is sold at once without holdMinutes: confirmed, as before", async () => {
    const date = await openDay();
    const res = await order({ email: "buyer@example.com", tickets: [line(date)] });
    expect(res.status).toBe(201);
    const sold = (await res.json()) as OrderJson;
    expect(sold.status).toBe("confirmed");
    expect(sold.expiresAt).toBeUndefined();
    expect((await getOrder(sold.orderId)).status).toBe("confirmed");
    const problem = await expectProblem(await extend(sold.orderId, 10), 409);
    expect(problem.type).toBe("/problems/order-confirmed");
  });

  it("of fifty lines naming their category is held and confirmed (each line's insert binds its companions' categories once each)", async () => {
    const date = await openDay();
    const lines = Array.from({ length: 50 }, () => ({ ...line(date), category: "adult" }));
    const res = await order({ holdMinutes: 15, tickets: lines });
    expect(res.status, await res.clone().text()).toBe(201);
    const held = (await res.json()) as OrderJson;
    expect(held.tickets).toHaveLength(50);
    expect((await confirm(held.orderId, { email: "buyer@example.com" })).status).toBe(200);
    expect((await taken(date)).taken).toBe(50);
  });

  it.each([
    ["behind", -2_500],
    ["ahead of", 2_500],
  ])("caps expiresAt at the moment its first ticket stops being sold, to the millisecond by the database's clock (the Worker's clock %s it)", async (_, skewMs) => {
    // A moment on a whole minute about 20 minutes on (the museum's clock is
    // whole minutes off UTC) whose museum day also holds the hour around it.
    let end = Math.ceil(((await databaseNow()) + 20 * 60_000) / 60_000) * 60_000;
    const sameDay = (t: number) => [t - 30 * 60_000, t + 60 * 60_000].every((u) => todayInZone(env.MUSEUM_TIMEZONE, new Date(u)) === todayInZone(env.MUSEUM_TIMEZONE, new Date(t)));
    while (!sameDay(end)) end += 5 * 60_000;
    const date = todayInZone(env.MUSEUM_TIMEZONE, new Date(end));
    const expected = new Date(end).toISOString();
    const setDay = (plan: Record<string, unknown>) =>
      api(`/v1.1/museum-hours/exceptions/${date}?cancelTickets=true`, { method: "PUT", json: { closed: false, ...plan } });
    // The Worker's clock a little off the database's, as two machines' clocks are.
    useClock(new Date(Date.now() + skewMs).toISOString());

    // A general ticket: its day's closing.
    expect((await setDay({ timeOpen: museumClock(end - 30 * 60_000), timeClose: museumClock(end) })).status).toBeLessThan(300);
    const held = await hold(date, 1, 60);
    expect(held.expiresAt).toBe(expected);
    const extended = await extend(held.orderId, 60);
    expect(extended.status).toBe(200);
    expect(((await extended.json()) as OrderJson).expiresAt).toBe(expected);
    // An order's lines share one end, the first of theirs, whichever line comes first.
    const later = await openDay();
    const res = await order({ holdMinutes: 60, tickets: [line(later), line(date), line(later)] });
    expect(res.status, await res.clone().text()).toBe(201);
    const mixed = (await res.json()) as OrderJson;
    expect(mixed.expiresAt).toBe(expected);
    const read = await getOrder(mixed.orderId);
    expect(read.expiresAt).toBe(expected);
    expect(read.tickets.map((t) => t.expiresAt)).toEqual([expected, expected, expected]);

    // A timed ticket: the end of its slot, before the day's closing.
    const timed = { timeOpen: museumClock(end - 30 * 60_000), timeClose: museumClock(end + 60 * 60_000), entrySlotMinutes: 30, slotCapacity: 5 };
    expect((await setDay(timed)).status).toBeLessThan(300);
    const slot = await order({ holdMinutes: 60, tickets: [{ ...line(date), entryTime: timed.timeOpen }] });
    expect(slot.status, await slot.clone().text()).toBe(201);
    const heldSlot = (await slot.json()) as OrderJson;
    expect(heldSlot.expiresAt).toBe(expected);
    expect(((await (await extend(heldSlot.orderId, 60)).json()) as OrderJson).expiresAt).toBe(expected);
  });
});

describe("an extension", () => {
  it("ends the hold at most 120 minutes after the order was made: asking for more gets less, and expiresAt says so", async () => {
    const date = await openDay();
    const held = await hold(date, 2, 15);
    // The order was made 100 minutes ago, by the database's clock.
    await env.DB.prepare("UPDATE orders SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-100 minutes') WHERE order_id = ?1")
      .bind(held.orderId)
      .run();
    const createdAt = (await getOrder(held.orderId)).createdAt!;
    const limit = new Date(Date.parse(createdAt) + 120 * 60_000).toISOString();

    const res = await extend(held.orderId, 60);
    expect(res.status, await res.clone().text()).toBe(200);
    const extended = (await res.json()) as OrderJson;
    expect(extended).toMatchObject({ status: "held", expiresAt: limit });
    expect(extended.tickets.map((t) => [t.status, t.expiresAt])).toEqual([["held", limit], ["held", limit]]);
    expect((await getOrder(held.orderId)).expiresAt).toBe(limit);
    // Again: the limit stays where it is.
    expect(((await (await extend(held.orderId, 60)).json()) as OrderJson).expiresAt).toBe(limit);

    // Asking for less than is left gets what it asked for.
    const before = await databaseNow();
    const shorter = (await (await extend(held.orderId, 10)).json()) as OrderJson;
    const after = await databaseNow();
    expect(Date.parse(shorter.expiresAt!)).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(Date.parse(shorter.expiresAt!)).toBeLessThanOrEqual(after + 10 * 60_000);
  });

  it("of an order made now is given every minute it asks for (a new hold is at most 60 minutes)", async () => {
    const date = await openDay();
    const held = await hold(date, 1, 60);
    const before = await databaseNow();
    const extended = (await (await extend(held.orderId, 60)).json()) as OrderJson;
    const after = await databaseNow();
    expect(Date.parse(extended.expiresAt!)).toBeGreaterThanOrEqual(before + 60 * 60_000);
    expect(Date.parse(extended.expiresAt!)).toBeLessThanOrEqual(after + 60 * 60_000);
  });
});

describe("expiry", () => {
  it("frees the places at expiresAt for the very next purchase; the order shows expired", async () => {
    const date = await openDay({ capacity: 2 });
    const held = await hold(date, 2);
    expect((await buy({ ...line(date), email: "v@example.com" })).status).toBe(409);
    await expire(held.orderId);
    expect(await taken(date)).toEqual({ taken: 0, available: 2 });
    expect((await buy({ ...line(date), email: "v@example.com" })).status).toBe(201);

    const status = await getOrder(held.orderId);
    expect(status.status).toBe("expired");
    expect(status.tickets[0]).toMatchObject({
      status: "cancelled",
      cancelledAt: "2000-01-01T00:00:00.000Z",
      cancellation: { source: "hold-expired", refund: { amount: 0 } },
    });
    const problem = await expectProblem(await extend(held.orderId, 10), 409);
    expect(problem.type).toBe("/problems/hold-expired");
  });

  it("a late confirmation sells while every place is still free, else 409 hold-expired with available", async () => {
    const date = await openDay({ capacity: 3 });
    const late = await hold(date, 2);
    await expire(late.orderId);
    const res = await confirm(late.orderId, { email: "buyer@example.com" });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ status: "confirmed", lateConfirmation: true });
    expect(await taken(date)).toEqual({ taken: 2, available: 1 });

    const tooLate = await hold(date, 1);
    await expire(tooLate.orderId);
    expect((await buy({ ...line(date), email: "v@example.com" })).status).toBe(201);
    const before = await dumpDatabase();
    const refused = await expectProblem(await confirm(tooLate.orderId, { email: "buyer@example.com" }), 409);
    expect(refused).toMatchObject({ type: "/problems/hold-expired", available: 0 });
    expect(await dumpDatabase()).toBe(before);
  });

  it("a late confirmation after the ticket's day is refused: an event ticket's as a general one's", async () => {
    const date = await openDay();
    const eventId = await createEvent([date], { capacity: 5 });
    const orders = [];
    for (const ticket of [{ ticketType: "event", eventId, ticketDate: date }, line(date)]) {
      const res = await order({ holdMinutes: 15, tickets: [ticket] });
      expect(res.status, await res.clone().text()).toBe(201);
      orders.push((await res.json()) as OrderJson);
    }
    for (const held of orders) await expire(held.orderId);
    useClock(`${plusDays(date, 1)}T17:00:00Z`); // noon the next day in New York
    const before = await dumpDatabase();
    for (const held of orders) {
      const refused = await expectProblem(await confirm(held.orderId, { email: "buyer@example.com" }), 409);
      expect(refused).toMatchObject({ type: "/problems/hold-expired", available: 0 });
    }
    expect(await dumpDatabase()).toBe(before);
  });

  it("a late confirmation of two lines needs room for both", async () => {
    const date = await openDay({ capacity: 3 });
    const held = await hold(date, 2);
    await expire(held.orderId);
    expect((await buy({ ...line(date), email: "v@example.com" })).status).toBe(201);
    expect((await buy({ ...line(date), email: "v@example.com" })).status).toBe(201);
    const refused = await expectProblem(await confirm(held.orderId, { email: "buyer@example.com" }), 409);
    expect(refused).toMatchObject({ type: "/problems/hold-expired", available: 1 });
  });
});

describe("release", () => {
  it("the order's cancellation releases a held order: refund 0, places free at once", async () => {
    const date = await openDay({ capacity: 2 });
    const held = await hold(date, 2);
    const res = await cancel(`/orders/${held.orderId}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const released = (await res.json()) as OrderJson;
    expect(released.status).toBe("released");
    expect(released.refund).toEqual({ amount: 0 });
    expect(released.tickets.map((t) => t.cancellation?.source)).toEqual(["hold-released", "hold-released"]);
    expect(await taken(date)).toEqual({ taken: 0, available: 2 });
    expect((await confirm(held.orderId, { email: "b@example.com" })).status).toBe(409);
    const problem = await expectProblem(await confirm(held.orderId, { email: "b@example.com" }), 409);
    expect(problem.type).toBe("/problems/order-released");
    expect((await expectProblem(await extend(held.orderId, 5), 409)).type).toBe("/problems/order-released");
  });

  it("a single held ticket is not cancelled on its own: 409 ticket-held", async () => {
    const date = await openDay();
    const held = await hold(date);
    const problem = await expectProblem(await cancel(`/tickets/${held.tickets[0]!.ticketId}`), 409);
    expect(problem.type).toBe("/problems/ticket-held");
  });

  it("a closure with cancelTickets releases a held order whole", async () => {
    const date = await openDay();
    const other = await openDay();
    const res = await order({ holdMinutes: 10, tickets: [line(date), line(other)] });
    const held = (await res.json()) as OrderJson;
    const closing = await api(`/v1.1/museum-hours/exceptions/${date}`, { method: "PUT", json: { closed: true } });
    const problem = await expectProblem(closing, 409);
    expect(problem).toMatchObject({ type: "/problems/tickets-affected", affectedTickets: 1 });
    const closed = await api(`/v1.1/museum-hours/exceptions/${date}?cancelTickets=true`, { method: "PUT", json: { closed: true } });
    expect(closed.status).toBeLessThan(300);
    const status = await getOrder(held.orderId);
    expect(status.status).toBe("released");
    expect(await recordedStatus(held.orderId)).toBe("released");
    expect(status.tickets.map((t) => [t.status, t.cancellation?.source, t.cancellation?.refund.amount])).toEqual([
      ["cancelled", "closure", 0],
      ["cancelled", "closure", 0],
    ]);
    expect(await taken(other)).toMatchObject({ taken: 0 });
    expect((await expectProblem(await confirm(held.orderId, { email: "b@example.com" }), 409)).type).toBe("/problems/order-released");
  });

  it("an expired hold strands nothing: the closure needs no cancelTickets", async () => {
    const date = await openDay();
    const held = await hold(date);
    await expire(held.orderId);
    const closing = await api(`/v1.1/museum-hours/exceptions/${date}`, { method: "PUT", json: { closed: true } });
    expect(closing.status).toBeLessThan(300);
  });

  it("a limit cannot go below live holds, but may go below expired ones", async () => {
    const date = await openDay({ capacity: 5 });
    const held = await hold(date, 3);
    const lower = (capacity: number) =>
      api(`/v1.1/museum-hours/exceptions/${date}`, { method: "PUT", json: { closed: false, timeOpen: "09:00", timeClose: "18:00", capacity } });
    expect((await expectProblem(await lower(2), 409)).type).toBe("/problems/capacity-below-sold");
    await expire(held.orderId);
    expect((await lower(2)).status).toBeLessThan(300);
  });
});

describe("the admissions summary", () => {
  it("counts confirmed tickets only as sold", async () => {
    const date = await openDay();
    await hold(date, 2);
    const released = await hold(date, 1);
    await cancel(`/orders/${released.orderId}`);
    expect((await order({ email: "b@example.com", tickets: [line(date)] })).status).toBe(201);
    const res = await api(`/v1.1/admissions/summary?date=${date}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { general: unknown }).general).toMatchObject({ sold: 1, admitted: 0, cancelled: 0 });
  });
});

describe("who may confirm", () => {
  it("another sales account gets 404; admin and box-office may", async () => {
    const date = await openDay();
    const held = await hold(date);
    await expectProblem(await confirm(held.orderId, { email: "b@example.com" }, { as: "kiosk" }), 404);
    await expectProblem(await extend(held.orderId, 5, "kiosk"), 404);
    expect((await extend(held.orderId, 5, "boxOffice")).status).toBe(200);
    expect((await confirm(held.orderId, { email: "b@example.com" }, { as: "boxOffice" })).status).toBe(200);
    const other = await hold(date);
    expect((await confirm(other.orderId, { email: "b@example.com" }, { as: "admin" })).status).toBe(200);
  });

  it("an unknown order is 404, a malformed id 400", async () => {
    await expectProblem(await confirm(crypto.randomUUID(), {}), 404);
    await expectProblem(await extend(crypto.randomUUID(), 5), 404);
    await expectValidationError(await confirm("not-an-id", {}), "path.orderId");
  });
});

describe("bad input", () => {
  it.each([0, 61, 1.5, "5", null])("holdMinutes %j is 400 naming it", async (holdMinutes) => {
    const date = await openDay();
    const before = await dumpDatabase();
    await expectValidationError(await order({ holdMinutes, tickets: [line(date)] }), "holdMinutes");
    await expectValidationError(await extend(crypto.randomUUID(), holdMinutes), "holdMinutes");
    expect(await dumpDatabase()).toBe(before);
  });

  it("an order without holdMinutes needs the e-mail", async () => {
    const date = await openDay();
    await expectValidationError(await order({ tickets: [line(date)] }), "email");
  });

  it("a confirmation body takes only the contact", async () => {
    const date = await openDay();
    const held = await hold(date);
    await expectValidationError(await confirm(held.orderId, { email: "nope" }), "email");
    await expectValidationError(await confirm(held.orderId, { phone: "+1 555 0100" }), "email");
    expect((await confirm(held.orderId, { holdMinutes: 5 })).status).toBe(400);
  });
});

describe("races", () => {
  it("100 simultaneous holds and purchases for the last 10 places give exactly 10", { timeout: 60_000 }, async () => {
    const date = await openDay({ capacity: 10 });
    const requests = Array.from({ length: 100 }, (_, i) =>
      i % 2 === 0 ? order({ holdMinutes: 10, tickets: [line(date)] }) : buy({ ...line(date), email: "v@example.com" }),
    );
    const counts = await statusCounts(requests);
    expect(counts.get(201)).toBe(10);
    expect(counts.get(409)).toBe(90);
    expect(await taken(date)).toEqual({ taken: 10, available: 0 });
  });

  it("a late confirmation racing a purchase of the freed places: one outcome", async () => {
    const date = await openDay({ capacity: 1 });
    const held = await hold(date);
    await expire(held.orderId);
    const [confirmation, purchase] = await Promise.all([
      confirm(held.orderId, { email: "b@example.com" }),
      buy({ ...line(date), email: "v@example.com" }),
    ]);
    // Whichever reaches the database first takes the place; the other is refused.
    const outcome = `${confirmation.status} ${purchase.status}`;
    expect(["200 409", "409 201"]).toContain(outcome);
    if (confirmation.status === 409) {
      expect((await expectProblem(confirmation, 409)).type).toBe("/problems/hold-expired");
      expect((await getOrder(held.orderId)).status).toBe("expired");
    } else {
      expect((await expectProblem(purchase, 409)).type).toBe("/problems/sold-out");
      expect((await getOrder(held.orderId)).status).toBe("confirmed");
    }
    expect(await taken(date)).toEqual({ taken: 1, available: 0 });
  });

  it("a confirmation racing a release: one outcome", async () => {
    const date = await openDay({ capacity: 1 });
    const held = await hold(date);
    const [confirmation, release] = await Promise.all([confirm(held.orderId, { email: "b@example.com" }), cancel(`/orders/${held.orderId}`)]);
    expect(release.status).toBe(200);
    const released = (await release.json()) as OrderJson;
    if (confirmation.status === 200) {
      // Confirmed first: the cancellation then cancelled a sold order, refunding it.
      expect(released).toMatchObject({ status: "confirmed", refund: { amount: 25 } });
    } else {
      expect((await expectProblem(confirmation, 409)).type).toBe("/problems/order-released");
      expect(released).toMatchObject({ status: "released", refund: { amount: 0 } });
    }
    expect(await taken(date)).toEqual({ taken: 0, available: 1 });
  });
});

describe("an event's held tickets", () => {
  it("count against its capacity, and its deletion releases the held order whole", async () => {
    const date = freshDay();
    const eventId = await createEvent([date], { capacity: 2 });
    const other = await openDay();
    const res = await order({ holdMinutes: 10, tickets: [{ ticketType: "event", eventId, ticketDate: date }, line(other)] });
    expect(res.status, await res.clone().text()).toBe(201);
    const held = (await res.json()) as OrderJson;
    const availability = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
    expect(((await availability.json()) as { events: { eventId: string; taken: number }[] }).events.find((e) => e.eventId === eventId)).toMatchObject({ taken: 1 });
    expect((await api(`/v1.1/special-events/${eventId}`, { method: "DELETE" })).status).toBeLessThan(300);
    const status = await getOrder(held.orderId);
    expect(status.status).toBe("released");
    expect(await recordedStatus(held.orderId)).toBe("released");
    expect(status.tickets.map((t) => t.cancellation?.source)).toEqual(["event-deleted", "event-deleted"]);
    expect(await taken(other)).toMatchObject({ taken: 0 });
  });
});

describe("orders released before their release was recorded (migrations/0019)", () => {
  it("are recorded released by the migration's backfill; held, expired and confirmed orders are left as they are", async () => {
    const date = await openDay();
    const stale = await hold(date);
    const live = await hold(date);
    const ranOut = await hold(date);
    await expire(ranOut.orderId);
    const sold = await hold(date);
    expect((await confirm(sold.orderId, { email: "b@example.com" })).status).toBe(200);
    // As a change recorded it before the trigger: the held ticket cancelled, the order still "held".
    await env.DB.batch([
      env.DB.prepare("DROP TRIGGER held_order_released"),
      env.DB.prepare("UPDATE tickets SET cancelled_at = '2026-01-01T00:00:00.000Z', cancel_source = 'closure', refund_cents = 0 WHERE order_id = ?1").bind(stale.orderId),
    ]);
    expect(await recordedStatus(stale.orderId)).toBe("held");
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0019_"))!;
    await env.DB.batch(migration.queries.map((query) => env.DB.prepare(query)));
    expect(await recordedStatus(stale.orderId)).toBe("released");
    expect((await getOrder(stale.orderId)).status).toBe("released");
    expect([await recordedStatus(live.orderId), await recordedStatus(ranOut.orderId), await recordedStatus(sold.orderId)]).toEqual(["held", "held", "confirmed"]);
    expect((await getOrder(ranOut.orderId)).status).toBe("expired");
  });
});
