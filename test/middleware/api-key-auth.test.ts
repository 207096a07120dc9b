// What a refused Bearer API key is answered on /octo (in OCTO's shape, with
// the problem's challenge and Retry-After kept), through the real Worker.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { testClientIp } from "../support/helpers";
import { insertKeys, KEYS, octo } from "../octo/support";

const BUDGET = Number(env.LOGIN_FAILURE_BUDGET);

beforeAll(insertKeys);

async function expectRefused(res: Response, status: number, error: string, errorMessage: string) {
  expect(res.status).toBe(status);
  expect(await res.json()).toEqual({ error, errorMessage });
}

describe("a refused API key", () => {
  it.each<[string, Record<string, string>]>([
    ["no Authorization header", {}],
    ["Basic credentials", { Authorization: `Basic ${btoa("test-reseller:x")}` }],
    ["Bearer without a key", { Authorization: "Bearer " }],
    ["a key with a space in it", { Authorization: "Bearer two words" }],
    ["a key longer than 256 characters", { Authorization: `Bearer ${"k".repeat(257)}` }],
  ])("%s: 401 asking for a key, with the Bearer challenge", async (_case, headers) => {
    const res = await octo("/supplier", { key: null, headers });
    expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
    await expectRefused(res, 401, "UNAUTHORIZED", "This operation needs an API key: Authorization: Bearer <key>.");
  });

  it.each<[string, Record<string, string>]>([
    ["a wrong key", { Authorization: "Bearer not-a-key-of-anyone-000000000000" }],
    ["a revoked key", { Authorization: `Bearer ${KEYS.revoked.key}` }],
    ["a key in another case", { Authorization: `Bearer ${KEYS.reseller.key.toUpperCase()}` }],
  ])("%s: 401, the same words for each", async (_case, headers) => {
    const res = await octo("/supplier", { key: null, headers });
    expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
    await expectRefused(res, 401, "UNAUTHORIZED", "The API key is wrong or revoked.");
  });

  it("past the failed-login budget: 429 with Retry-After, the right key included", async () => {
    const client = { "CF-Connecting-IP": testClientIp() };
    for (let i = 0; i < BUDGET; i++) expect((await octo("/supplier", { key: null, headers: { ...client, Authorization: "Bearer wrong-key" } })).status).toBe(401);
    const res = await octo("/supplier", { headers: client });
    expect(res.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
    expect(res.headers.get("WWW-Authenticate")).toBeNull();
    await expectRefused(res, 429, "TOO_MANY_REQUESTS", `Too many failed logins from this client; retry in ${res.headers.get("Retry-After")} seconds.`);
  });

  it("the scheme name in any case, and more than one space after it", async () => {
    for (const scheme of ["bearer ", "BEARER ", "Bearer   "]) {
      expect((await octo("/supplier", { key: null, headers: { Authorization: `${scheme}${KEYS.reseller.key}` } })).status).toBe(200);
    }
  });
});
