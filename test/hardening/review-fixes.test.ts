// Fixes from the security review (issue 12), each shown failing the way the
// attacker saw it before the fix.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { ticketImageEtag } from "../../src/tickets/image";
import { useClock } from "../clock";
import { ACCOUNTS, api, basic, createEvent, eventBody, expectProblem, expectValidationError } from "../helpers";

describe("ticket image ETag and edge-cache key", () => {
  const ticket = {
    ticketId: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
    ticketType: "general" as const,
    ticketDate: "2026-12-01",
    confirmationCode: "ticket-general-abcdef-12345",
    cancelled: false,
  };

  it("change when the signing key is rotated under the same key id", async () => {
    const before = await ticketImageEtag(ticket, { current: { id: "K1", secret: "a".repeat(64) } });
    const after = await ticketImageEtag(ticket, { current: { id: "K1", secret: "b".repeat(64) } });
    expect(after).not.toBe(before);
    // Stable for the same key, and the key itself is not in it.
    expect(await ticketImageEtag(ticket, { current: { id: "K1", secret: "a".repeat(64) } })).toBe(before);
    expect(before).not.toContain("aaaa");
  });
});

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

describe("failed-login throttle under a burst", () => {
  const BUDGET = Number(env.LOGIN_FAILURE_BUDGET);
  const ip = "203.0.113.250";
  const send = (authorization: string) =>
    api("/v1.1/museum-hours", { as: null, headers: { "CF-Connecting-IP": ip, Authorization: authorization } });

  it("100 simultaneous bad logins get at most the budget of 401s; then the right password gets 429 until the window passes", async () => {
    useClock("2031-02-01T12:00:00Z");
    const wrong = basic(ACCOUNTS.admin.name, "not-the-password");
    const responses = await Promise.all(Array.from({ length: 100 }, () => send(wrong)));
    const statuses = responses.map((res) => res.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(BUDGET);
    expect(statuses.filter((s) => s === 401).length + statuses.filter((s) => s === 429).length).toBe(100);
    for (const res of responses.filter((r) => r.status === 429)) expect(res.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);

    const right = basic(ACCOUNTS.admin.name, ACCOUNTS.admin.secret);
    await expectProblem(await send(right), 429);
    useClock("2031-02-01T12:05:01Z");
    expect((await send(right)).status).toBe(200);
  });

  it("a right password inside a burst is refused once the budget is spent", async () => {
    useClock("2031-03-01T12:00:00Z");
    const other = "203.0.113.251";
    const wrong = basic(ACCOUNTS.sales.name, "nope");
    const right = basic(ACCOUNTS.sales.name, ACCOUNTS.sales.secret);
    const from = (authorization: string) =>
      api("/v1.1/museum-hours", { as: null, headers: { "CF-Connecting-IP": other, Authorization: authorization } });
    // One failure first, so the client's window exists when the burst starts.
    await expectProblem(await from(wrong), 401);
    const burst = await Promise.all([...Array.from({ length: 40 }, () => from(wrong)), from(right)]);
    expect(burst.filter((r) => r.status === 401).length).toBeLessThanOrEqual(BUDGET - 1);
    // Once spent, nothing gets through.
    expect((await from(right)).status).toBe(429);
  });
});

describe("text fields refuse control and bidirectional-control characters", () => {
  const REFUSED_EVERYWHERE = ["\u0000", "\u0007", "\u001b", "\u007f", "\u0085", "\u009f", "\u202a", "\u202e", "\u2066", "\u2069", "\r"];
  const SINGLE_LINE_ONLY = ["\n", "\t"];
  const FINE = ["Zoë's Café ☕", "Mañana 🎉", "אירוע", "Tour (R&D) – 2nd"];

  for (const field of ["name", "location"]) {
    it.each([...REFUSED_EVERYWHERE, ...SINGLE_LINE_ONLY])(`event ${field} refuses U+%#`, async (char) => {
      await expectValidationError(
        await api("/v1.1/special-events", { method: "POST", json: eventBody({ [field]: `Tour ${char}gnp.exe` }) }),
        field,
      );
    });
  }

  it.each(REFUSED_EVERYWHERE)("eventDescription refuses control %#", async (char) => {
    await expectValidationError(
      await api("/v1.1/special-events", { method: "POST", json: eventBody({ eventDescription: `a${char}b` }) }),
      "eventDescription",
    );
  });

  it("eventDescription keeps line feeds and tabs; names keep ordinary Unicode", async () => {
    for (const name of FINE) {
      const created = await createEvent({ name, eventDescription: "Line one\nLine two\twith a tab" });
      expect(created.name).toBe(name);
      expect(created.eventDescription).toBe("Line one\nLine two\twith a tab");
    }
  });

  it.each([...REFUSED_EVERYWHERE, ...SINGLE_LINE_ONLY])("an exception reason refuses U+%#", async (char) => {
    const res = await api("/v1.1/museum-hours/exceptions/2031-12-25", {
      method: "PUT",
      json: { closed: true, reason: `Holiday${char}` },
    });
    await expectValidationError(res, "reason");
  });

  it("PATCH refuses them too", async () => {
    const created = await createEvent();
    await expectValidationError(
      await api(`/v1.1/special-events/${created.eventId}`, { method: "PATCH", json: { name: "Tour \u202egnp.exe" } }),
      "name",
    );
  });
});
