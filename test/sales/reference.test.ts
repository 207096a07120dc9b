// The seller's own order reference (contract: "Orders"), through the real
// Worker and D1: unique per account, decided by the writing batch; the
// look-up by it, scoped as the orders are; refused values.
import { describe, expect, it } from "vitest";
import { type AccountKey, api, dumpDatabase, expectProblem, expectValidationError, testDays } from "../support/helpers";
import { order, type OrderResponse, type OrderStatusJson } from "../tickets/fixtures";

const { openDay } = testDays(20);

const orderBody = (day: string, reference?: string) => ({
  email: "shop-buyer@example.com",
  ...(reference === undefined ? {} : { reference }),
  tickets: [{ ticketType: "general", ticketDate: day }],
});

async function sold(json: unknown, as: AccountKey = "sales", key?: string): Promise<OrderResponse> {
  const res = await order(json, { as, key });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as OrderResponse;
}

async function byReference(reference: string, as: AccountKey): Promise<OrderStatusJson[]> {
  const res = await api(`/v1.1/orders?reference=${encodeURIComponent(reference)}`, { as });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get("Cache-Control")).toBe("no-store");
  return (await res.json()) as OrderStatusJson[];
}

/** A reference no other test uses. */
const newReference = () => `SHOP-${crypto.randomUUID().slice(0, 8)}`;

describe("an order's reference", () => {
  it("is returned on POST and GET; the same reference again from the same account is 409 naming the first order, and sells nothing", async () => {
    const day = await openDay();
    const reference = newReference();
    const first = await sold(orderBody(day, reference));
    expect(first.reference).toBe(reference);
    const status = (await (await api(`/v1.1/orders/${first.orderId}`, { as: "sales" })).json()) as OrderStatusJson;
    expect(status.reference).toBe(reference);

    const before = await dumpDatabase();
    const again = await order(orderBody(day, reference));
    const problem = (await expectProblem(again, 409)) as unknown as Record<string, unknown>;
    expect(problem).toMatchObject({ type: "/problems/duplicate-reference", orderId: first.orderId });
    expect(await dumpDatabase()).toBe(before);

    // Without a reference, nothing is unique: orders sell as before and carry none.
    const plain = await sold(orderBody(day));
    expect(plain).not.toHaveProperty("reference");
    expect(await (await api(`/v1.1/orders/${plain.orderId}`, { as: "sales" })).json()).not.toHaveProperty("reference");
    await sold(orderBody(day));
  });

  it("is unique per account: another account may use it; box-office and admin find both, newest first; each seller its own", async () => {
    const day = await openDay();
    const reference = newReference();
    const shops = await sold(orderBody(day, reference), "sales");
    const kiosks = await sold(orderBody(day, reference), "kiosk");
    const desks = await sold(orderBody(day, reference), "boxOffice");

    const all = await byReference(reference, "boxOffice");
    expect(all.map((o) => o.orderId)).toEqual([desks.orderId, kiosks.orderId, shops.orderId]);
    expect(all[2]).toEqual((await (await api(`/v1.1/orders/${shops.orderId}`)).json()) as OrderStatusJson);
    expect(all[2]!.tickets.map((t) => t.ticketId)).toEqual(shops.tickets.map((t) => t.ticketId));
    expect(await byReference(reference, "admin")).toEqual(all);
    expect((await byReference(reference, "sales")).map((o) => o.orderId)).toEqual([shops.orderId]);
    expect((await byReference(reference, "kiosk")).map((o) => o.orderId)).toEqual([kiosks.orderId]);
    expect(await byReference(newReference(), "admin")).toEqual([]);
    await expectProblem(await api(`/v1.1/orders?reference=${reference}`, { as: "gate" }), 403);
  });

  it("replays under its Idempotency-Key instead of refusing the retry", async () => {
    const day = await openDay();
    const key = crypto.randomUUID();
    const body = orderBody(day, newReference());
    const first = await sold(body, "sales", key);
    const retry = await order(body, { key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retry.json()).toEqual(first);
  });

  it("refuses a reference of 65 characters, a control character, a blank one, an empty one or a number: 400 naming `reference`", async () => {
    const day = await openDay();
    const before = await dumpDatabase();
    for (const reference of ["R".repeat(65), "SHOP\u0007-1", "SHOP\n1", "   ", "", "SHOP\u200b1", 12345]) {
      await expectValidationError(await order({ ...orderBody(day), reference }), "reference");
    }
    expect(await dumpDatabase()).toBe(before);
    // 64 characters, counted as code points, is fine.
    const longest = `${"🎟".repeat(4)}${"R".repeat(56)}${crypto.randomUUID().slice(0, 4)}`;
    expect([...longest].length).toBe(64);
    expect((await sold(orderBody(day, longest))).reference).toBe(longest);
    expect((await byReference(longest, "sales")).length).toBe(1);
  });

  it("GET /orders without a reference, or a malformed one, is 400 naming `query.reference`", async () => {
    await expectValidationError(await api("/v1.1/orders", { as: "sales" }), "query.reference");
    await expectValidationError(await api(`/v1.1/orders?reference=${"R".repeat(65)}`, { as: "sales" }), "query.reference");
    await expectValidationError(await api("/v1.1/orders?reference=%07bell", { as: "sales" }), "query.reference");
    await expectValidationError(await api("/v1.1/orders?reference=", { as: "sales" }), "query.reference");
  });
});
