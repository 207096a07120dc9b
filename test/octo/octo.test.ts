// The OCTO door (contract: "Resellers: the OCTO booking standard"), through
// the real Worker and D1: API keys, products, availability with the figures
// of GET /availability, and a booking's life cycle as the sales, holds and
// box-office services decide it. The standard's own validator runs
// separately (npm run test:octo).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/platform/crypto";
import { verifyTicketCode } from "../../src/ticket-image";
import { useClock } from "../support/clock";
import { workerCodeKeys } from "../support/ticket-codes";
import { api, nextWeekday, plusDays, testClientIp, testDays } from "../support/helpers";
import { MEASURED_CLIENT, roundTripsOf } from "../support/round-trips";
import { createEvent } from "../tickets/fixtures";
import { insertKeys, KEYS, octo, ok, expectOctoError, type Availability, type Booking, availabilityId, reserve } from "./support";

const { openDay, freshDay, today } = testDays(80);

beforeAll(insertKeys);

async function generalTaken(date: string): Promise<{ taken: number; entrySlots?: { entryTime: string; taken: number; available: number }[] }> {
  const res = await api(`/v1.1/availability?date=${date}`, { as: "admin" });
  return ((await res.json()) as { general: { taken: number; entrySlots?: { entryTime: string; taken: number; available: number }[] } }).general;
}

describe("API keys", () => {
  it("no key, a wrong key and a revoked key are 401 UNAUTHORIZED in OCTO's shape", async () => {
    await expectOctoError(await octo("/products", { key: null }), 401, "UNAUTHORIZED");
    await expectOctoError(await octo("/products", { key: null, headers: { Authorization: "Bearer not-a-key-of-anyone-000000000000" } }), 401, "UNAUTHORIZED");
    await expectOctoError(await octo("/products", { key: "revoked" }), 401, "UNAUTHORIZED");
    // Basic credentials are not a key.
    await expectOctoError(await api("/octo/products", { as: "sales" }), 401, "UNAUTHORIZED");
  });

  it("are stored as their SHA-256 only", async () => {
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE key_id = 't-reseller'").first<Record<string, unknown>>();
    expect(Object.values(row!)).not.toContain(KEYS.reseller.key);
    expect(row!.key_sha256).toBe(await sha256Hex(KEYS.reseller.key));
  });

  it("count against the failed-login budget of the client: a wrong key past it is 429 with Retry-After", async () => {
    const client = { "CF-Connecting-IP": testClientIp() };
    const wrong = { Authorization: "Bearer wrong-key-000000000000000000000000" };
    for (let i = 0; i < 10; i++) expect((await octo("/supplier", { key: null, headers: { ...client, ...wrong } })).status).toBe(401);
    const throttled = await expectOctoError(await octo("/supplier", { key: "reseller", headers: client }), 429, "TOO_MANY_REQUESTS");
    expect(throttled).toBeDefined();
  });

  it("of an account that is not a sales account are 403 FORBIDDEN", async () => {
    await expectOctoError(await octo("/supplier", { key: "gate" }), 403, "FORBIDDEN");
  });
});

describe("Octo-Capabilities", () => {
  it("is answered empty on every answer, an error's too: OCTO core only, whatever a request asks for", async () => {
    for (const res of [
      await octo("/supplier", { headers: { "Octo-Capabilities": "octo/pricing, octo/content" } }),
      await octo("/products/no-such-product"),
      await octo("/supplier", { key: null }),
    ]) {
      expect(res.headers.get("Octo-Capabilities"), `${res.status}`).toBe("");
      await res.body?.cancel();
    }
  });
});

describe("products", () => {
  it("are general admission (first) and each active event, option DEFAULT, units the categories on sale", async () => {
    const eventId = await createEvent([freshDay()]);
    const products = await ok<{ id: string; availabilityType: string; options: { id: string; units: { id: string; type: string }[] }[] }[]>(await octo("/products"));
    expect(products[0]!.id).toBe("general");
    const event = products.find((p) => p.id === eventId)!;
    expect(event.availabilityType).toBe("OPENING_HOURS");
    expect(event.options.map((o) => o.id)).toEqual(["DEFAULT"]);
    expect(event.options[0]!.units).toContainEqual(expect.objectContaining({ id: "adult", type: "ADULT" }));
    expect((await ok<{ id: string }>(await octo(`/products/${eventId}`))).id).toBe(eventId);
    expect((await expectOctoError(await octo("/products/not-a-product"), 400, "INVALID_PRODUCT_ID")).productId).toBe("not-a-product");
  });
});

describe("availability", () => {
  it("has the figures of GET /availability: one per entry slot on a timed day", async () => {
    const date = await openDay({ entrySlotMinutes: 180, slotCapacity: 3 });
    for (let i = 0; i < 2; i++) {
      expect((await api("/v1.1/tickets", { method: "POST", as: "sales", json: { ticketType: "general", ticketDate: date, entryTime: "09:00", email: "a@example.com" } })).status).toBe(201);
    }
    const list = await ok<Availability[]>(await octo("/availability", { json: { productId: "general", optionId: "DEFAULT", localDateStart: date, localDateEnd: date } }));
    const slots = (await generalTaken(date)).entrySlots!;
    expect(list.map((a) => [a.id, a.vacancies, a.capacity, a.allDay])).toEqual(slots.map((s) => [availabilityId(date, s.entryTime), s.available, 3, false]));
    // One place of three left: less than half (the calendar's rule).
    expect(list.map((a) => a.status)).toEqual(["LIMITED", "AVAILABLE", "AVAILABLE"]);
    const [byId] = await ok<Availability[]>(await octo("/availability", { json: { productId: "general", optionId: "DEFAULT", availabilityIds: [list[1]!.id] } }));
    expect(byId).toEqual(list[1]);
  });

  it("of an event sold out is SOLD_OUT, and the calendar says the same", async () => {
    const date = freshDay();
    const eventId = await createEvent([date], { capacity: 1 });
    expect((await api("/v1.1/tickets", { method: "POST", as: "sales", json: { ticketType: "event", eventId, ticketDate: date, email: "a@example.com" } })).status).toBe(201);
    const [availability] = await ok<Availability[]>(await octo("/availability", { json: { productId: eventId, optionId: "DEFAULT", localDateStart: date, localDateEnd: date } }));
    expect(availability).toMatchObject({ id: availabilityId(date, "00:00"), status: "SOLD_OUT", available: false, vacancies: 0, capacity: 1 });
    const [day] = await ok<{ localDate: string; status: string }[]>(
      await octo("/availability/calendar", { json: { productId: eventId, optionId: "DEFAULT", localDateStart: date, localDateEnd: date } }),
    );
    expect(day).toMatchObject({ localDate: date, status: "SOLD_OUT" });
  });

  it("refuses an unknown product or option, and dates with availabilityIds, in OCTO's codes", async () => {
    const date = freshDay();
    const body = { productId: "general", optionId: "DEFAULT", localDateStart: date, localDateEnd: date };
    await expectOctoError(await octo("/availability", { json: { ...body, productId: "nope" } }), 400, "INVALID_PRODUCT_ID");
    await expectOctoError(await octo("/availability", { json: { ...body, productId: crypto.randomUUID() } }), 400, "INVALID_PRODUCT_ID");
    await expectOctoError(await octo("/availability", { json: { ...body, optionId: "nope" } }), 400, "INVALID_OPTION_ID");
    await expectOctoError(await octo("/availability", { json: { ...body, availabilityIds: ["x"] } }), 400, "BAD_REQUEST");
    await expectOctoError(await octo("/availability/calendar", { json: { productId: "general", optionId: "DEFAULT", localDateEnd: date } }), 400, "BAD_REQUEST");
  });
});

describe("a booking", () => {
  it("is a held order: same places, the uuid making it once, the reseller's own", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const uuid = crypto.randomUUID();
    const held = await ok<Booking>(await reserve(date, "10:00", ["adult", "adult"], { uuid, expirationMinutes: 20 }));
    expect(held).toMatchObject({ id: uuid, uuid, status: "ON_HOLD", availabilityId: availabilityId(date, "10:00") });
    expect(held.unitItems.map((i) => [i.unitId, i.status, i.ticket.deliveryOptions])).toEqual([["adult", "ON_HOLD", []], ["adult", "ON_HOLD", []]]);
    // The same uuid again: the booking as it stands, nothing more taken.
    expect((await ok<Booking>(await reserve(date, "10:00", ["adult"], { uuid }))).unitItems).toHaveLength(2);
    expect((await generalTaken(date)).taken).toBe(2);
    // Another reseller: not its uuid to use, nor its booking to see.
    expect((await expectOctoError(await reserve(date, "10:00", ["adult"], { uuid }, "other"), 400, "INVALID_BOOKING_UUID")).uuid).toBe(uuid);
    await expectOctoError(await octo(`/bookings/${uuid}`, { key: "other" }), 400, "INVALID_BOOKING_UUID");
    for (const action of ["extend", "confirm", "cancel"]) {
      const json = action === "confirm" ? { contact: { emailAddress: "x@example.com" } } : {};
      await expectOctoError(await octo(`/bookings/${uuid}/${action}`, { key: "other", json }), 400, "INVALID_BOOKING_UUID");
    }
    expect((await ok<Booking>(await octo(`/bookings/${uuid}/extend`, { json: { expirationMinutes: 25 } }))).utcExpiresAt! > held.utcExpiresAt!).toBe(true);
    // The museum's own door sees the same order.
    expect((await api(`/v1.1/orders/${uuid}`, { as: "admin" })).status).toBe(200);
  });

  it("is confirmed with the contact and the reseller's reference; each ticket carries its genuine code", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const held = await ok<Booking>(await reserve(date, "11:00", ["adult", "adult"]));
    const confirmed = await ok<Booking>(
      await octo(`/bookings/${held.uuid}/confirm`, { json: { resellerReference: `R-${held.uuid.slice(0, 8)}`, contact: { firstName: "Ada", emailAddress: "ada@example.com" } } }),
    );
    expect(confirmed).toMatchObject({ status: "CONFIRMED", utcExpiresAt: null, resellerReference: `R-${held.uuid.slice(0, 8)}`, contact: { firstName: "Ada", emailAddress: "ada@example.com" } });
    for (const item of confirmed.unitItems) {
      const [option] = item.ticket.deliveryOptions;
      expect(option!.deliveryFormat).toBe("QRCODE");
      expect((await verifyTicketCode(option!.deliveryValue, workerCodeKeys()))?.tid).toBe(item.uuid);
    }
    const listed = await ok<Booking[]>(await octo(`/bookings?resellerReference=R-${held.uuid.slice(0, 8)}`));
    expect(listed.map((b) => b.uuid)).toEqual([held.uuid]);
    expect((await ok<Booking[]>(await octo(`/bookings?supplierReference=${confirmed.supplierReference}`))).map((b) => b.uuid)).toEqual([held.uuid]);
    expect((await ok<Booking[]>(await octo(`/bookings?localDate=${date}`))).map((b) => b.uuid)).toEqual([held.uuid]);
  });

  it("without the buyer's e-mail is not sold (the sale's rule): 400, still on hold", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const held = await ok<Booking>(await reserve(date, "12:00", ["adult"]));
    await expectOctoError(await octo(`/bookings/${held.uuid}/confirm`, { json: { contact: { fullName: "No Mail" } } }), 400, "BAD_REQUEST");
    expect((await ok<Booking>(await octo(`/bookings/${held.uuid}`))).status).toBe("ON_HOLD");
  });

  it("on hold changes its unit items and slot all or nothing: the old places given back, the new taken", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 3 });
    const held = await ok<Booking>(await reserve(date, "09:00", ["adult", "adult"]));
    const moved = await ok<Booking>(
      await octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { availabilityId: availabilityId(date, "10:00"), unitItems: [{ unitId: "adult" }, { unitId: "adult" }, { unitId: "adult" }] } }),
    );
    expect(moved).toMatchObject({ id: held.id, uuid: held.uuid, supplierReference: held.supplierReference, availabilityId: availabilityId(date, "10:00"), status: "ON_HOLD" });
    // Asked for no new hold: it ends when it did.
    expect(moved.utcExpiresAt).toBe(held.utcExpiresAt);
    expect(moved.unitItems).toHaveLength(3);
    const slots = (await generalTaken(date)).entrySlots!;
    expect(slots.filter((s) => s.taken > 0).map((s) => [s.entryTime, s.taken])).toEqual([["10:00", 3]]);
    // Four do not fit a slot of three: refused as the sale refuses them (not as a booking off hold), the hold unchanged.
    const four = Array.from({ length: 4 }, () => ({ unitId: "adult" }));
    for (const change of [
      octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { unitItems: four } }),
      octo(`/bookings/${held.uuid}/confirm`, { json: { unitItems: four, contact: { emailAddress: "ada@example.com" } } }),
    ]) {
      const refused = await expectOctoError(await change, 400, "UNPROCESSABLE_ENTITY");
      // The sale's sold-out, its figures read after the refusal (docs/octo.md: the booking's own places still count there).
      expect(refused.errorMessage).toMatch(/^Line \d: (No places are|Only \d places? (is|are)) left for this purchase; nothing was sold\.$/);
      expect(await ok<Booking>(await octo(`/bookings/${held.uuid}`))).toMatchObject({ status: "ON_HOLD", unitItems: moved.unitItems });
    }
  });

  it("confirmed with other unit items and no e-mail keeps the buyer's contact; without one on record, 400 and still on hold", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const contact = { emailAddress: "kept@example.com", phoneNumber: "+1 555 0100" };
    const withContact = await ok<Booking>(await reserve(date, "14:00", ["adult"], { contact }));
    const confirmed = await ok<Booking>(await octo(`/bookings/${withContact.uuid}/confirm`, { json: { unitItems: [{ unitId: "adult" }, { unitId: "adult" }], contact: { fullName: "Ada Lovelace" } } }));
    expect(confirmed).toMatchObject({ status: "CONFIRMED", contact: { ...contact, fullName: "Ada Lovelace" } });
    expect(confirmed.unitItems.map((item) => [item.unitId, item.status])).toEqual([["adult", "CONFIRMED"], ["adult", "CONFIRMED"]]);
    const { results: sold } = await env.DB.prepare("SELECT DISTINCT buyer_email, buyer_phone FROM tickets WHERE order_id = ?1 AND cancelled_at IS NULL")
      .bind(withContact.uuid)
      .all();
    expect(sold).toEqual([{ buyer_email: contact.emailAddress, buyer_phone: contact.phoneNumber }]);

    const without = await ok<Booking>(await reserve(date, "15:00", ["adult"]));
    const refused = await expectOctoError(await octo(`/bookings/${without.uuid}/confirm`, { json: { unitItems: [{ unitId: "adult" }, { unitId: "adult" }], contact: { fullName: "No Mail" } } }), 400, "BAD_REQUEST");
    expect(refused.errorMessage).toBe("contact.emailAddress: Required: this booking has no buyer's e-mail yet.");
    expect(await ok<Booking>(await octo(`/bookings/${without.uuid}`))).toMatchObject({ status: "ON_HOLD", unitItems: without.unitItems });
    expect((await generalTaken(date)).entrySlots!.filter((s) => s.taken > 0).map((s) => [s.entryTime, s.taken])).toEqual([["14:00", 2], ["15:00", 1]]);
  });

  it("is cancelled with the box office's rules: a hold released, a sale refunded in full", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    const held = await ok<Booking>(await reserve(date, "13:00", ["adult"]));
    expect(await ok<Booking>(await octo(`/bookings/${held.uuid}/cancel`, { json: { reason: "changed plans" } }))).toMatchObject({
      status: "CANCELLED",
      cancellation: { refund: "NONE", reason: "changed plans" },
    });
    const sold = await ok<Booking>(await reserve(date, "13:00", ["adult"]));
    await ok(await octo(`/bookings/${sold.uuid}/confirm`, { json: { contact: { emailAddress: "b@example.com" } } }));
    expect((await ok<Booking>(await octo(`/bookings/${sold.uuid}/cancel`, { json: {} }))).cancellation?.refund).toBe("FULL");
    expect((await generalTaken(date)).taken).toBe(0);
  });

  it("is cancellable while its tickets could still be sold (the box office's rule): not after its day's closing", async () => {
    const date = await openDay();
    const sold = await ok<Booking & { cancellable: boolean }>(await reserve(date, "09:00", ["adult"]));
    const confirmed = await ok<Booking & { cancellable: boolean }>(await octo(`/bookings/${sold.uuid}/confirm`, { json: { contact: { emailAddress: "b@example.com" } } }));
    expect(confirmed.cancellable).toBe(true);
    // The evening of its day, after its 18:00 closing (20:30 or 21:30 in New York).
    useClock(`${plusDays(date, 1)}T01:30:00Z`);
    expect((await ok<Booking & { cancellable: boolean }>(await octo(`/bookings/${sold.uuid}`))).cancellable).toBe(false);
    await expectOctoError(await octo(`/bookings/${sold.uuid}/cancel`, { json: {} }), 400, "UNPROCESSABLE_ENTITY");
    expect((await ok<Booking>(await octo(`/bookings/${sold.uuid}`))).status).toBe("CONFIRMED");
  });

  it("on an untimed day starts at its opening, the whole day; another time is not an availability", async () => {
    const date = await openDay();
    const [availability] = await ok<Availability[]>(await octo("/availability", { json: { productId: "general", optionId: "DEFAULT", localDateStart: date, localDateEnd: date } }));
    expect(availability).toMatchObject({ id: availabilityId(date, "09:00"), allDay: true });
    const held = await ok<Booking>(await reserve(date, "09:00", ["adult"]));
    expect(held.availabilityId).toBe(availabilityId(date, "09:00"));
    expect((await generalTaken(date)).taken).toBe(1);
    await expectOctoError(await reserve(date, "10:00", ["adult"]), 400, "INVALID_AVAILABILITY_ID");
    // A Sunday: closed by the weekly schedule.
    await expectOctoError(await reserve(nextWeekday(plusDays(today, 300), 0), "09:00", ["adult"]), 400, "INVALID_AVAILABILITY_ID");
  });

  it("refuses what is not one of OCTO's ids in its codes, echoing the id", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    await expectOctoError(await reserve(date, "10:30", ["adult"]), 400, "INVALID_AVAILABILITY_ID");
    expect((await expectOctoError(await reserve(date, "10:00", ["child-x"]), 400, "INVALID_UNIT_ID")).unitId).toBe("child-x");
    expect((await expectOctoError(await reserve(date, "10:00", ["Adult"]), 400, "INVALID_UNIT_ID")).unitId).toBe("Adult");
    await expectOctoError(await reserve(date, "10:00", []), 400, "UNPROCESSABLE_ENTITY");
    expect((await expectOctoError(await octo("/bookings/not-a-uuid"), 400, "INVALID_BOOKING_UUID")).uuid).toBe("not-a-uuid");
  });
});

describe("listing bookings", () => {
  const uuids = (list: Booking[]) => list.map((b) => b.uuid);
  const listed = async (query: string, key: "reseller" | "other" = "reseller") => uuids(await ok<Booking[]>(await octo(`/bookings?${query}`, { key })));

  it("by a range of dates: those with a ticket from its first to its last day, oldest first, only the reseller's own", async () => {
    const [before, first, middle, last, after] = [await openDay(), await openDay(), await openDay(), await openDay(), await openDay()];
    const book = async (date: string, key: "reseller" | "other" = "reseller") => (await ok<Booking>(await reserve(date, "09:00", ["adult"], {}, key))).uuid;
    const outsideBefore = await book(before);
    const onFirst = await book(first);
    const inMiddle = await book(middle);
    const onLast = await book(last);
    const outsideAfter = await book(after);
    const others = await book(middle, "other");
    // Confirmed, cancelled or moved out of the range: a booking is where its tickets are now.
    await ok(await octo(`/bookings/${inMiddle}/confirm`, { json: { contact: { emailAddress: "m@example.com" } } }));
    const cancelled = await book(middle);
    await ok(await octo(`/bookings/${cancelled}/cancel`, { json: {} }));
    const movedOut = await book(first);
    await ok(await octo(`/bookings/${movedOut}`, { method: "PATCH", json: { availabilityId: availabilityId(after, "09:00") } }));
    // The museum's own sales of those days are no reseller's bookings.
    expect((await api("/v1.1/tickets", { method: "POST", as: "sales", json: { ticketType: "general", ticketDate: middle, email: "v@example.com" } })).status).toBe(201);

    expect(await listed(`localDateStart=${first}&localDateEnd=${last}`)).toEqual([onFirst, inMiddle, onLast, cancelled]);
    expect(await listed(`localDateStart=${middle}&localDateEnd=${middle}`)).toEqual([inMiddle, cancelled]);
    expect(await listed(`localDate=${middle}`)).toEqual([inMiddle, cancelled]);
    expect(await listed(`localDateStart=${before}&localDateEnd=${before}`)).toEqual([outsideBefore]);
    expect(await listed(`localDateStart=${after}&localDateEnd=${plusDays(after, 30)}`)).toEqual([outsideAfter, movedOut]);
    expect(await listed(`localDateStart=${plusDays(after, 1)}&localDateEnd=${plusDays(after, 30)}`)).toEqual([]);
    expect(await listed(`localDateStart=${before}&localDateEnd=${after}`, "other")).toEqual([others]);
  });

  it("by the reseller's reference or the supplier's: the reseller's own booking only", async () => {
    const date = await openDay();
    const reference = `LIST-${crypto.randomUUID().slice(0, 8)}`;
    const mine = await ok<Booking>(await reserve(date, "09:00", ["adult"], { resellerReference: reference }));
    // Another reseller may use the same reference for a booking of its own.
    const theirs = await ok<Booking>(await reserve(date, "09:00", ["adult"], { resellerReference: reference }, "other"));
    expect(await listed(`resellerReference=${reference}`)).toEqual([mine.uuid]);
    expect(await listed(`resellerReference=${reference}`, "other")).toEqual([theirs.uuid]);
    expect(await listed(`resellerReference=${reference}-2`)).toEqual([]);
    expect(await listed(`supplierReference=${mine.supplierReference}`)).toEqual([mine.uuid]);
    expect(await listed(`supplierReference=${mine.supplierReference.toUpperCase()}`)).toEqual([mine.uuid]);
    expect(await listed(`supplierReference=${theirs.supplierReference}`)).toEqual([]);
    expect(await listed(`supplierReference=${theirs.supplierReference}`, "other")).toEqual([theirs.uuid]);
  });

  it("by dates, at most 1,000 in one answer, oldest first: one more is 400, asking for fewer days", { timeout: 60_000 }, async () => {
    const date = await openDay();
    // Sold by the sale, a thousand bookings would take minutes: written straight, one ticket each, as the sale writes them.
    const write = async (count: number): Promise<string[]> => {
      const ids = Array.from({ length: count }, () => crypto.randomUUID());
      const rows = JSON.stringify(ids);
      await env.DB.batch([
        env.DB.prepare("INSERT INTO orders (order_id, sold_by, status, confirmation_code) SELECT value, ?1, 'confirmed', lower(hex(randomblob(8))) FROM json_each(?2)").bind(KEYS.reseller.account, rows),
        env.DB.prepare(
          `INSERT INTO tickets (ticket_id, ticket_type, ticket_date, category, confirmation_code, buyer_email, price_cents, sold_by, order_id, order_line)
           SELECT value, 'general', ?3, 'adult', 'ticket-general-' || lower(hex(randomblob(8))), 'crowd@example.com', 2500, ?1, value, 0 FROM json_each(?2)`,
        ).bind(KEYS.reseller.account, rows, date),
      ]);
      return ids;
    };
    const thousand = await write(1_000);
    const all = await ok<Booking[]>(await octo(`/bookings?localDate=${date}`));
    expect(uuids(all)).toEqual(thousand);
    expect(all.every((booking) => booking.status === "CONFIRMED" && booking.unitItems[0]!.ticket.deliveryOptions.length === 1)).toBe(true);
    await write(1);
    for (const query of [`localDate=${date}`, `localDateStart=${plusDays(date, -3)}&localDateEnd=${plusDays(date, 3)}`]) {
      const refused = await expectOctoError(await octo(`/bookings?${query}`), 400, "BAD_REQUEST");
      expect(refused.errorMessage).toBe("More than 1,000 bookings have tickets on these dates: ask for fewer days.");
    }
    // Another reseller has none of them.
    expect(await listed(`localDate=${date}`, "other")).toEqual([]);
  });

  it("refuses a range that ends before it starts, a malformed date and a query naming nothing, in OCTO's shape", async () => {
    const date = freshDay();
    const badRequest = async (query: string) => (await expectOctoError(await octo(`/bookings?${query}`), 400, "BAD_REQUEST")).errorMessage;
    expect(await badRequest(`localDateStart=${date}&localDateEnd=${plusDays(date, -1)}`)).toMatch(/localDateEnd/);
    // A year at most: 366 days after the start is the last end.
    expect(await badRequest(`localDateStart=${date}&localDateEnd=${plusDays(date, 367)}`)).toBe("localDateEnd: cannot request more than 1 year of bookings.");
    expect(await listed(`localDateStart=${date}&localDateEnd=${plusDays(date, 366)}`)).toEqual([]);
    for (const bad of ["2026-13-01", "2026-02-30", "2026-1-05", "tomorrow", ""]) {
      expect(await badRequest(`localDateStart=${bad}&localDateEnd=${date}`), bad).toMatch(/localDateStart/);
      expect(await badRequest(`localDateStart=${date}&localDateEnd=${bad}`), bad).toMatch(/localDateEnd/);
    }
    expect(await badRequest(`localDate=${date.replaceAll("-", "/")}`)).toMatch(/localDate/);
    expect(await badRequest(`localDateStart=${date}`)).toMatch(/localDateStart and localDateEnd/);
    expect(await badRequest(`localDateEnd=${date}`)).toMatch(/localDateStart and localDateEnd/);
    expect(await badRequest("")).toMatch(/resellerReference/);
    expect(await badRequest(`resellerReference=${"x".repeat(65)}`)).toMatch(/resellerReference/);
    await expectOctoError(await octo(`/bookings?localDate=${date}`, { key: null }), 401, "UNAUTHORIZED");
  });
});

describe("round trips (the login remembered)", () => {
  it("an availability check, a reservation and a confirmation are one D1 round trip each", async () => {
    const date = await openDay({ entrySlotMinutes: 60, slotCapacity: 10 });
    await ok(await octo("/supplier", { headers: MEASURED_CLIENT }));
    const check = await roundTripsOf(() => octo("/availability", { headers: MEASURED_CLIENT, json: { productId: "general", optionId: "DEFAULT", localDateStart: date, localDateEnd: date } }));
    expect(check.res.status).toBe(200);
    expect(check.roundTrips).toBe(1);
    const reservation = await roundTripsOf(() =>
      octo("/bookings", {
        headers: MEASURED_CLIENT,
        json: { productId: "general", optionId: "DEFAULT", availabilityId: availabilityId(date, "14:00"), unitItems: [{ unitId: "adult" }], contact: { emailAddress: "c@example.com" } },
      }),
    );
    const held = await ok<Booking>(reservation.res);
    expect(reservation.roundTrips).toBe(1);
    const confirm = await roundTripsOf(() => octo(`/bookings/${held.uuid}/confirm`, { headers: MEASURED_CLIENT, json: { contact: {} } }));
    expect(confirm.res.status, await confirm.res.clone().text()).toBe(200);
    expect(confirm.roundTrips).toBe(1);
  });
});
