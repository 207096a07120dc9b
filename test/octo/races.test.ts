// The races of the holds tests (test/sales/holds.test.ts, "races") through
// the OCTO door, against /v1.1 on the same places: OCTO is a second door to
// the same sale (contract: "Resellers: the OCTO booking standard"), so the
// database decides them exactly as it does on /v1.1 alone.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, testDays } from "../support/helpers";
import { buy } from "../tickets/fixtures";
import { type Availability, type Booking, expectOctoError, insertKeys, octo, ok, reserve } from "./support";

const { openDay } = testDays(120);

beforeAll(insertKeys);

/** Moves a booking's hold into the past, as the database's clock passing utcExpiresAt would. */
async function expire(uuid: string) {
  await env.DB.prepare("UPDATE tickets SET hold_until = '2000-01-01T00:00:00.000Z' WHERE order_id = ?1 AND hold_until IS NOT NULL").bind(uuid).run();
}

/** GET /v1.1/availability's figures of general admission on `date` (a slot's, with `entryTime`). */
async function taken(date: string, entryTime?: string): Promise<{ taken: number; available: number | null }> {
  const res = await api(`/v1.1/availability?date=${date}`, { as: "sales" });
  expect(res.status).toBe(200);
  const { general } = (await res.json()) as { general: { taken: number; available: number | null; entrySlots?: { entryTime: string; taken: number; available: number }[] } };
  const figures = entryTime === undefined ? general : general.entrySlots!.find((slot) => slot.entryTime === entryTime)!;
  return { taken: figures.taken, available: figures.available };
}

/** OCTO's check of general admission on `date`: its availabilities' vacancies and statuses. */
async function octoVacancies(date: string): Promise<{ id: string; vacancies: number | null; status: string }[]> {
  const res = await octo("/availability", { json: { productId: "general", optionId: "DEFAULT", localDateStart: date, localDateEnd: date } });
  return (await ok<Availability[]>(res)).map(({ id, vacancies, status }) => ({ id, vacancies, status }));
}

const CONFIRMATION = { contact: { fullName: "Ada Lovelace", emailAddress: "ada@example.com" } };

/** Each answer's status and, for OCTO's, its body (read once). */
async function settled(requests: Promise<Response>[]): Promise<{ status: number; body: Record<string, unknown> }[]> {
  return Promise.all(
    requests.map(async (request) => {
      const res = await request;
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }),
  );
}

describe("races through OCTO", () => {
  it("50 simultaneous OCTO bookings and /v1.1 purchases for the last 10 places give exactly 10", { timeout: 60_000 }, async () => {
    const date = await openDay({ capacity: 10 });
    const requests = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0 ? reserve(date, "09:00", ["adult"]) : buy({ ticketType: "general", ticketDate: date, email: "v@example.com" }),
    );
    const answers = await settled(requests);
    const held = answers.filter((a, i) => i % 2 === 0 && a.status === 200);
    const bought = answers.filter((a, i) => i % 2 === 1 && a.status === 201);
    expect(held.length + bought.length).toBe(10);
    for (const a of held) expect(a.body.status).toBe("ON_HOLD");
    // Every refusal is the sale's sold-out: OCTO's UNPROCESSABLE_ENTITY (400), /v1.1's 409.
    for (const [i, a] of answers.entries()) {
      if (i % 2 === 0 && a.status !== 200) expect([a.status, a.body.error]).toEqual([400, "UNPROCESSABLE_ENTITY"]);
      if (i % 2 === 1 && a.status !== 201) expect([a.status, a.body.type]).toEqual([409, "/problems/sold-out"]);
    }
    expect(await taken(date)).toEqual({ taken: 10, available: 0 });
    expect(await octoVacancies(date)).toEqual([expect.objectContaining({ vacancies: 0, status: "SOLD_OUT" })]);
  });

  it("50 simultaneous OCTO bookings of two units for the last 10 places of a slot give exactly 5, both units or neither", { timeout: 60_000 }, async () => {
    const date = await openDay({ timeOpen: "09:00", timeClose: "12:00", entrySlotMinutes: 60, slotCapacity: 10 });
    const answers = await settled(Array.from({ length: 50 }, () => reserve(date, "10:00", ["adult", "adult"])));
    const held = answers.filter((a) => a.status === 200);
    expect(held).toHaveLength(5);
    for (const a of held) expect(a.body).toMatchObject({ status: "ON_HOLD", unitItems: [{ status: "ON_HOLD" }, { status: "ON_HOLD" }] });
    for (const a of answers.filter((a) => a.status !== 200)) expect([a.status, a.body.error]).toEqual([400, "UNPROCESSABLE_ENTITY"]);
    expect(await taken(date, "10:00")).toEqual({ taken: 10, available: 0 });
    expect(await taken(date, "09:00")).toEqual({ taken: 0, available: 10 });
  });

  it("a late OCTO confirmation racing a /v1.1 purchase of the freed place: one outcome", async () => {
    const date = await openDay({ capacity: 1 });
    const booking = await ok<Booking>(await reserve(date, "09:00", ["adult"]));
    await expire(booking.uuid);
    const [confirmation, purchase] = await Promise.all([
      octo(`/bookings/${booking.uuid}/confirm`, { json: CONFIRMATION }),
      buy({ ticketType: "general", ticketDate: date, email: "v@example.com" }),
    ]);
    // Whichever reaches the database first takes the place; the other is refused.
    const outcome = `${confirmation.status} ${purchase.status}`;
    expect(["200 409", "400 201"]).toContain(outcome);
    const after = await ok<Booking>(await octo(`/bookings/${booking.uuid}`));
    if (confirmation.status === 400) {
      expect((await expectOctoError(confirmation, 400, "UNPROCESSABLE_ENTITY")).errorMessage).toMatch(/hold/i);
      expect(after.status).toBe("EXPIRED");
    } else {
      expect(((await purchase.json()) as { type: string }).type).toBe("/problems/sold-out");
      expect(after).toMatchObject({ status: "CONFIRMED", unitItems: [{ status: "CONFIRMED" }] });
    }
    expect(await taken(date)).toEqual({ taken: 1, available: 0 });
  });

  it("an OCTO confirmation racing its cancellation: one outcome", async () => {
    const date = await openDay({ capacity: 1 });
    const booking = await ok<Booking>(await reserve(date, "09:00", ["adult"]));
    const [confirmation, cancellation] = await Promise.all([
      octo(`/bookings/${booking.uuid}/confirm`, { json: CONFIRMATION }),
      octo(`/bookings/${booking.uuid}/cancel`, { json: { reason: "changed plans" } }),
    ]);
    const cancelled = await ok<Booking>(cancellation);
    expect(cancelled.status).toBe("CANCELLED");
    if (confirmation.status === 200) {
      // Confirmed first: the cancellation then cancelled a sold booking, refunding it.
      expect(cancelled.cancellation?.refund).toBe("FULL");
    } else {
      await expectOctoError(confirmation, 400, "UNPROCESSABLE_ENTITY");
      expect(cancelled.cancellation?.refund).toBe("NONE");
    }
    expect(await taken(date)).toEqual({ taken: 0, available: 1 });
  });
});

/** The tickets of `orderId` the database still counts (not cancelled or released) and their buyers' e-mails. */
async function liveTickets(orderId: string): Promise<{ count: number; emails: string[] }> {
  const { results } = await env.DB.prepare(
    "SELECT buyer_email FROM tickets WHERE order_id = ?1 AND cancelled_at IS NULL ORDER BY buyer_email",
  )
    .bind(orderId)
    .all<{ buyer_email: string | null }>();
  return { count: results.length, emails: [...new Set(results.map((r) => r.buyer_email ?? ""))] };
}

const adults = (n: number) => Array.from({ length: n }, () => ({ unitId: "adult" }));

describe("PATCH races through OCTO", () => {
  it("two simultaneous changes of a held booking's unit items: one of the two, whole, and the places counted for it", async () => {
    const date = await openDay({ timeOpen: "09:00", timeClose: "14:00", entrySlotMinutes: 60, slotCapacity: 6 });
    // Five rounds, one slot each, so that both orders of arrival get their chance.
    for (const time of ["09:00", "10:00", "11:00", "12:00", "13:00"]) {
      const held = await ok<Booking>(await reserve(date, time, ["adult", "adult"], { contact: { emailAddress: "held@example.com" } }));
      const [three, one] = await settled([
        octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { unitItems: adults(3) } }),
        octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { unitItems: adults(1) } }),
      ]);
      // Both fit the slot: each is applied in turn, the later one last.
      expect([three!.status, one!.status], JSON.stringify([three, one])).toEqual([200, 200]);
      const after = await ok<Booking>(await octo(`/bookings/${held.uuid}`));
      expect(after).toMatchObject({ uuid: held.uuid, status: "ON_HOLD", supplierReference: held.supplierReference, utcExpiresAt: held.utcExpiresAt });
      const units = after.unitItems.length;
      expect([1, 3]).toContain(units);
      expect(after.unitItems.every((item) => item.status === "ON_HOLD" && item.unitId === "adult")).toBe(true);
      // The later answer is the booking as it stands.
      expect([three!.body, one!.body].map((b) => (b.unitItems as unknown[]).length)).toContain(units);
      expect(await liveTickets(held.uuid)).toEqual({ count: units, emails: ["held@example.com"] });
      expect(await taken(date, time)).toEqual({ taken: units, available: 6 - units });
      expect((await octoVacancies(date)).find((a) => a.id === held.availabilityId)?.vacancies).toBe(6 - units);
    }
  });

  it("a change of unit items racing a change of the contact: both applied, never the one undoing the other", async () => {
    const date = await openDay({ timeOpen: "09:00", timeClose: "14:00", entrySlotMinutes: 60, slotCapacity: 6 });
    for (const time of ["09:00", "10:00", "11:00", "12:00", "13:00"]) {
      const held = await ok<Booking>(await reserve(date, time, ["adult", "adult"], { contact: { fullName: "Old Name", emailAddress: "old@example.com" } }));
      const [units, contact] = await settled([
        octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { unitItems: adults(3) } }),
        octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { contact: { fullName: "New Name", emailAddress: "new@example.com" } } }),
      ]);
      expect([units!.status, contact!.status], JSON.stringify([units, contact])).toEqual([200, 200]);
      const after = await ok<Booking & { contact: { fullName: string | null } }>(await octo(`/bookings/${held.uuid}`));
      expect(after.unitItems).toHaveLength(3);
      expect(after.contact).toMatchObject({ fullName: "New Name", emailAddress: "new@example.com" });
      expect(await liveTickets(held.uuid)).toEqual({ count: 3, emails: ["new@example.com"] });
      expect(await taken(date, time)).toEqual({ taken: 3, available: 3 });
    }
  });

  it("a confirmation with other unit items and no e-mail racing a change of the contact: sold with the new contact", async () => {
    const date = await openDay({ timeOpen: "09:00", timeClose: "14:00", entrySlotMinutes: 60, slotCapacity: 6 });
    for (const time of ["09:00", "10:00", "11:00", "12:00", "13:00"]) {
      const held = await ok<Booking>(await reserve(date, time, ["adult", "adult"], { contact: { emailAddress: "old@example.com", phoneNumber: "+1 555 0100" } }));
      const [confirmation, contact] = await settled([
        octo(`/bookings/${held.uuid}/confirm`, { json: { unitItems: adults(3), contact: { fullName: "Ada" } } }),
        octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { contact: { emailAddress: "new@example.com", phoneNumber: "+1 555 0199" } } }),
      ]);
      expect([confirmation!.status, contact!.status], JSON.stringify([confirmation, contact])).toEqual([200, 200]);
      const after = await ok<Booking>(await octo(`/bookings/${held.uuid}`));
      expect(after).toMatchObject({ status: "CONFIRMED", contact: { emailAddress: "new@example.com", phoneNumber: "+1 555 0199" } });
      expect(after.unitItems).toHaveLength(3);
      expect(await liveTickets(held.uuid)).toEqual({ count: 3, emails: ["new@example.com"] });
      expect(await taken(date, time)).toEqual({ taken: 3, available: 3 });
    }
  });

  it("a change adding units racing /v1.1 purchases of the last places: never more than the capacity, each all or nothing", { timeout: 60_000 }, async () => {
    const date = await openDay({ capacity: 4 });
    for (let round = 0; round < 3; round++) {
      // A fresh day of four places each round: a booking of one, then it asks for three while three purchases want one each.
      const day = round === 0 ? date : await openDay({ capacity: 4 });
      const held = await ok<Booking>(await reserve(day, "09:00", ["adult"], { contact: { emailAddress: "held@example.com" } }));
      const [change, ...purchases] = await settled([
        octo(`/bookings/${held.uuid}`, { method: "PATCH", json: { unitItems: adults(3) } }),
        ...Array.from({ length: 3 }, () => buy({ ticketType: "general", ticketDate: day, email: "v@example.com" })),
      ]);
      const bought = purchases.filter((p) => p.status === 201).length;
      for (const p of purchases.filter((p) => p.status !== 201)) expect([p.status, p.body.type]).toEqual([409, "/problems/sold-out"]);
      const after = await ok<Booking>(await octo(`/bookings/${held.uuid}`));
      expect(after.status).toBe("ON_HOLD");
      if (change!.status === 200) {
        expect(after.unitItems).toHaveLength(3);
        expect(bought).toBeLessThanOrEqual(1);
      } else {
        // Refused: the booking kept its one unit, and the purchases took places the change wanted.
        expect([change!.status, change!.body.error]).toEqual([400, "UNPROCESSABLE_ENTITY"]);
        expect(after.unitItems).toHaveLength(1);
        expect(bought).toBeGreaterThanOrEqual(2);
      }
      const holding = after.unitItems.length;
      expect(await liveTickets(held.uuid)).toEqual({ count: holding, emails: ["held@example.com"] });
      expect(holding + bought).toBeLessThanOrEqual(4);
      expect(await taken(day)).toEqual({ taken: holding + bought, available: 4 - holding - bought });
      const [availability] = await octoVacancies(day);
      expect(availability!.vacancies).toBe(4 - holding - bought);
    }
  });
});
