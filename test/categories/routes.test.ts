// Ticket categories (contract: "Ticket categories and their prices"): the
// list, create or replace, retire, and the default's rules, through the real
// Worker and D1.
import { describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, expectValidationError } from "../support/helpers";

const put = (categoryId: string, json: unknown, as: "admin" | "sales" | "boxOffice" | "gate" = "admin") =>
  api(`/v1.1/ticket-categories/${categoryId}`, { method: "PUT", json, as });
const retire = (categoryId: string) => api(`/v1.1/ticket-categories/${categoryId}`, { method: "DELETE" });
async function list(query = "", as: "admin" | "sales" | "boxOffice" = "admin") {
  const res = await api(`/v1.1/ticket-categories${query}`, { as });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>[];
}
const ADULT = { categoryId: "adult", name: "Adult", price: 25, default: true, accompanied: false, unitType: "ADULT" };

describe("GET /ticket-categories", () => {
  it("lists the migration's adult category to every selling role", async () => {
    for (const as of ["admin", "sales", "boxOffice"] as const) {
      expect((await list("", as)).find((c) => c.categoryId === "adult")).toEqual(ADULT);
    }
    const res = await api("/v1.1/ticket-categories", { as: "gate" });
    await expectProblem(res, 403);
  });

  it("refuses a malformed includeRetired", async () => {
    await expectValidationError(await api("/v1.1/ticket-categories?includeRetired=yes"), "query.includeRetired");
  });
});

describe("PUT /ticket-categories/{categoryId}", () => {
  it("creates (201), replaces (200), lists by id; missing accompanied is false, missing unitType OTHER", async () => {
    const created = await put("zz-senior", { name: "Senior", price: 18.5, accompanied: true, unitType: "SENIOR" });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({
      categoryId: "zz-senior", name: "Senior", price: 18.5, default: false, accompanied: true, unitType: "SENIOR",
    });
    const replaced = await put("zz-senior", { name: "Senior (65+)", price: 17 });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toEqual({
      categoryId: "zz-senior", name: "Senior (65+)", price: 17, default: false, accompanied: false, unitType: "OTHER",
    });
    const ids = (await list()).map((c) => c.categoryId as string);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain("zz-senior");
  });

  it("is admin only", async () => {
    for (const as of ["sales", "boxOffice", "gate"] as const) await expectProblem(await put("x-role", { name: "X", price: 1 }, as), 403);
  });

  it("moves the default: default true takes it from the former one; default false on the default is 409", async () => {
    expect((await put("zz-default", { name: "Visitor", price: 20, default: true })).status).toBe(201);
    let categories = await list();
    expect(categories.filter((c) => c.default).map((c) => c.categoryId)).toEqual(["zz-default"]);
    const before = await dumpDatabase();
    const refused = await expectProblem(await put("zz-default", { name: "Visitor", price: 20, default: false }), 409);
    expect(refused.type).toBe("/problems/default-category");
    expect(await dumpDatabase()).toBe(before);
    // A replace without `default` keeps it.
    expect((await put("zz-default", { name: "Visitor", price: 21 })).status).toBe(200);
    categories = await list();
    expect(categories.find((c) => c.categoryId === "zz-default")!.default).toBe(true);
    expect((await put("adult", { name: "Adult", price: 25, default: true, unitType: "ADULT" })).status).toBe(200);
    expect((await list()).filter((c) => c.default).map((c) => c.categoryId)).toEqual(["adult"]);
  });

  it("never makes the default accompanied (409 default-category), and changes nothing", async () => {
    const before = await dumpDatabase();
    for (const body of [
      { name: "Adult", price: 25, accompanied: true },
      { name: "Kid", price: 0, accompanied: true, default: true },
    ]) {
      const target = "default" in body ? "zz-kid-default" : "adult";
      expect((await expectProblem(await put(target, body), 409)).type).toBe("/problems/default-category");
    }
    expect(await dumpDatabase()).toBe(before);
  });

  it("refuses bad input, naming each field", async () => {
    await expectValidationError(await put("Adult", { name: "A", price: 1 }), "path.categoryId");
    await expectValidationError(await put("a".repeat(21), { name: "A", price: 1 }), "path.categoryId");
    await expectValidationError(await put("kid_1", { name: "A", price: 1 }), "path.categoryId");
    expect((await put("a".repeat(20), { name: "A", price: 1 })).status).toBe(201);
    await expectValidationError(await put("zz-bad", { name: "A", price: 1.005 }), "price");
    await expectValidationError(await put("zz-bad", { name: "A", price: -1 }), "price");
    await expectValidationError(await put("zz-bad", { name: "A", price: 1_000_000.01 }), "price");
    await expectValidationError(await put("zz-bad", { name: "A", price: "1" }), "price");
    await expectValidationError(await put("zz-bad", { name: "A", price: 1, unitType: "KID" }), "unitType");
    await expectValidationError(await put("zz-bad", { name: "A", price: 1, accompanied: "yes" }), "accompanied");
    await expectValidationError(await put("zz-bad", { name: "", price: 1 }), "name");
    await expectValidationError(await put("zz-bad", { name: "x".repeat(101), price: 1 }), "name");
    await expectValidationError(await put("zz-bad", { price: 1 }), "name");
    await expectValidationError(await put("zz-bad", { name: "A" }), "price");
    const unknown = await expectProblem(await put("zz-bad", { name: "A", price: 1, colour: "red" }), 400);
    expect(unknown.type).toBe("/problems/validation-error");
    expect((await put("zz-max", { name: "Patron", price: 1_000_000 })).status).toBe(201);
    expect((await list()).map((c) => c.categoryId)).not.toContain("zz-bad");
  });
});

describe("DELETE /ticket-categories/{categoryId}", () => {
  it("retires (204): gone from the list, listed with includeRetired=true as retired; PUT brings it back", async () => {
    expect((await put("zz-member", { name: "Member", price: 0 })).status).toBe(201);
    const res = await retire("zz-member");
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect((await list()).map((c) => c.categoryId)).not.toContain("zz-member");
    expect((await list("?includeRetired=true")).find((c) => c.categoryId === "zz-member")).toEqual({
      categoryId: "zz-member", name: "Member", price: 0, default: false, accompanied: false, unitType: "OTHER", retired: true,
    });
    expect((await retire("zz-member")).status).toBe(204);
    expect((await put("zz-member", { name: "Member", price: 0 })).status).toBe(200);
    expect((await list()).find((c) => c.categoryId === "zz-member")).not.toHaveProperty("retired");
  });

  it("never retires the default (409), and an unknown id is 404", async () => {
    expect((await expectProblem(await retire("adult"), 409)).type).toBe("/problems/default-category");
    await expectProblem(await retire("zz-nobody"), 404);
    await expectValidationError(await retire("NOPE"), "path.categoryId");
    expect((await list()).map((c) => c.categoryId)).toContain("adult");
  });
});
