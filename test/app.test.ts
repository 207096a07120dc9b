// The app's request ids (src/app.ts): always its own, a client's id logged apart.
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { api, expectProblem } from "./support/helpers";

describe("X-Request-Id", () => {
  let spy: MockInstance;
  beforeEach(() => {
    spy = vi.spyOn(console, "log").mockImplementation(() => {});
  });
  afterEach(() => spy.mockRestore());

  const accessLines = () =>
    spy.mock.calls
      .map((args) => JSON.parse(String(args[0])) as Record<string, unknown>)
      .filter((line) => line.message === "request");

  it("is always ours; a sane client id is logged apart as clientRequestId", async () => {
    const res = await api("/v1.1/no-such-route", { headers: { "X-Request-Id": "attacker-chosen-id" } });
    const problem = await expectProblem(res, 404);
    const ours = res.headers.get("X-Request-Id")!;
    expect(ours).not.toBe("attacker-chosen-id");
    expect(problem.requestId).toBe(ours);
    expect(accessLines().at(-1)).toMatchObject({ requestId: ours, clientRequestId: "attacker-chosen-id" });

    const ok = await api("/v1.1/museum-hours", { headers: { "X-Request-Id": "abc" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a client id that is not a sane token is not logged at all", async () => {
    for (const id of ["with space", "x".repeat(65), "<script>", "a/b"]) {
      expect((await api("/v1.1/museum-hours", { headers: { "X-Request-Id": id } })).status).toBe(200);
    }
    for (const line of accessLines()) expect(line.clientRequestId).toBeUndefined();
  });
});
