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
