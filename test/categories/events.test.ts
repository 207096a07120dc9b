// An event's prices per category (contract: "Ticket categories and their
// prices", special events): on create, PATCH and GET, through the real
// Worker and D1.
import { describe, expect, it } from "vitest";
import { api, dumpDatabase, eventBody, expectProblem, expectValidationError } from "../support/helpers";

async function putCategory(categoryId: string, body: Record<string, unknown>) {
  const res = await api(`/v1.1/ticket-categories/${categoryId}`, { method: "PUT", json: body });
  expect([200, 201]).toContain(res.status);
}
await putCategory("child", { name: "Child", price: 0, accompanied: true, unitType: "CHILD" });
await putCategory("member", { name: "Member", price: 0 });

async function create(overrides: Record<string, unknown>) {
  return api("/v1.1/special-events", { method: "POST", json: eventBody(overrides) });
}
const patch = (eventId: string, json: unknown) => api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json });
async function get(eventId: string) {
  return (await (await api(`/v1.1/special-events/${eventId}`)).json()) as Record<string, unknown>;
}

describe("categoryPrices on special events", () => {
  it("is returned as created (by category id), left out when not set, replaced by PATCH and removed by null", async () => {
    const res = await create({ price: 20, categoryPrices: { member: 12.5, child: 5 } });
    expect(res.status).toBe(201);
    const event = (await res.json()) as Record<string, unknown> & { eventId: string };
    expect(event.categoryPrices).toEqual({ child: 5, member: 12.5 });
    expect(Object.keys(event.categoryPrices as object)).toEqual(["child", "member"]);
    expect(await get(event.eventId)).toEqual(event);

    const patched = await patch(event.eventId, { categoryPrices: { child: 0 } });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as Record<string, unknown>).categoryPrices).toEqual({ child: 0 });
    // Other fields leave them as they were.
    expect(((await (await patch(event.eventId, { price: 21 })).json()) as Record<string, unknown>).categoryPrices).toEqual({ child: 0 });
    const removed = (await (await patch(event.eventId, { categoryPrices: null })).json()) as Record<string, unknown>;
    expect(removed).not.toHaveProperty("categoryPrices");
    expect(await get(event.eventId)).not.toHaveProperty("categoryPrices");

    const plain = (await (await create({})).json()) as Record<string, unknown>;
    expect(plain).not.toHaveProperty("categoryPrices");
  });

  it("refuses an unknown or retired category (400 naming it) and writes nothing", async () => {
    await putCategory("zz-retired", { name: "Retired", price: 1 });
    expect((await api("/v1.1/ticket-categories/zz-retired", { method: "DELETE" })).status).toBe(204);
    const before = await dumpDatabase({ except: ["login_failures"] });
    await expectValidationError(await create({ categoryPrices: { "zz-nobody": 1 } }), "categoryPrices.zz-nobody");
    await expectValidationError(await create({ categoryPrices: { child: 1, "zz-retired": 1 } }), "categoryPrices.zz-retired");
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
  });

  it("keeps a retired category the event already had, so a GET sent back as a PATCH works", async () => {
    await putCategory("zz-old", { name: "Old", price: 1 });
    const event = (await (await create({ categoryPrices: { "zz-old": 3, member: 1 } })).json()) as Record<string, unknown> & { eventId: string };
    expect((await api("/v1.1/ticket-categories/zz-old", { method: "DELETE" })).status).toBe(204);
    const { eventId, ...fields } = event;
    const res = await patch(eventId, fields);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).categoryPrices).toEqual({ member: 1, "zz-old": 3 });
    const other = (await (await create({})).json()) as { eventId: string };
    await expectValidationError(await patch(other.eventId, { categoryPrices: { "zz-old": 3 } }), "categoryPrices.zz-old");
  });

  it("is 404 for an unknown event before looking at its categories", async () => {
    await expectProblem(await patch(crypto.randomUUID(), { categoryPrices: { "zz-nobody": 1 } }), 404);
  });

  it("refuses bad prices and keys, naming each", async () => {
    for (const [prices, path] of [
      [{ child: 1.005 }, "categoryPrices.child"],
      [{ child: -1 }, "categoryPrices.child"],
      [{ child: 1_000_000.01 }, "categoryPrices.child"],
      [{ child: "1" }, "categoryPrices.child"],
      [{ child: null }, "categoryPrices.child"],
      [{ Child: 1 }, "categoryPrices.Child"],
      [[1], "categoryPrices"],
    ] as const) {
      const res = await create({ categoryPrices: prices });
      const problem = await expectProblem(res, 400);
      expect(problem.errors?.map((e) => e.path).join(" "), JSON.stringify(prices)).toContain(path);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`c${i}`, 1]));
    await expectProblem(await create({ categoryPrices: tooMany }), 400);
  });

  it("names a key that is no category id by the key, saying what an id is, as the document's propertyNames does", async () => {
    const doc = (await (await api("/v1.1/openapi.json", { as: null })).json()) as { components: { schemas: Record<string, Record<string, unknown>> } };
    const keys = doc.components.schemas.CategoryPrices!.propertyNames as { pattern: string };
    expect(keys).toEqual({ pattern: (doc.components.schemas.CategoryId as { pattern: string }).pattern });
    const message = "Must be 1 to 20 characters of a-z, 0-9 and -.";
    for (const key of ["Bad Key", "x".repeat(21), "child!"]) {
      expect(new RegExp(keys.pattern, "u").test(key), key).toBe(false);
      const before = await dumpDatabase();
      const problem = await expectValidationError(await create({ categoryPrices: { child: 1, [key]: 2 } }), `categoryPrices.${key}`);
      expect(problem.errors).toEqual([{ path: `categoryPrices.${key}`, message }]);
      expect(await dumpDatabase()).toBe(before);
    }
  });
});
