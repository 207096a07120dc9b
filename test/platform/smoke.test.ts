import { describe, expect, it } from "vitest";
import { api } from "../helpers";

describe("smoke", () => {
  it("index", async () => {
    const res = await api("/", { as: null });
    expect(res.status).toBe(200);
    console.log(res.headers, await res.text());
  });
  it("list", async () => {
    const res = await api("/v1.1/special-events");
    console.log(res.status, [...res.headers], await res.text());
  });
});
