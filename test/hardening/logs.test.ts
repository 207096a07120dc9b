// Structured logs: one JSON line per request and one per unexpected error,
// never a password, Authorization header, e-mail, phone or QR token.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { clearD1Faults, injectD1Faults } from "../support/d1-faults";
import { log } from "../../src/platform/log";
import { ACCOUNTS, api, basic, nextWeekday, plusDays, todayInZone } from "../support/helpers";
import { ticketCodeOf } from "../support/ticket-codes";

type Line = Record<string, unknown>;

const METHODS = ["log", "info", "warn", "error", "debug"] as const;
let spies: MockInstance[] = [];

/** Everything written to the console since the test began, one string per call. */
function captured(): string[] {
  return spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" ")));
}

function jsonLines(): Line[] {
  return captured().map((text) => JSON.parse(text) as Line);
}

beforeEach(() => {
  spies = METHODS.map((method) => vi.spyOn(console, method).mockImplementation(() => {}));
});

afterEach(() => {
  for (const spy of spies) spy.mockRestore();
  clearD1Faults();
});

function openDay(): string {
  return nextWeekday(plusDays(todayInZone(env.MUSEUM_TIMEZONE), 8), 2);
}

describe("request log", () => {
  it("one line per request: requestId, method, route pattern, status, durationMs, account", async () => {
    const res = await api("/v1.1/museum-hours?limit=2", { as: "sales" });
    const notFound = await api(`/v1.1/special-events/${crypto.randomUUID()}`);
    const unknown = await api("/nowhere/at/all", { as: null });
    const lines = jsonLines();
    expect(lines).toEqual([
      {
        level: "info",
        message: "request",
        requestId: res.headers.get("X-Request-Id"),
        method: "GET",
        route: "/v1.1/museum-hours",
        status: 200,
        durationMs: expect.any(Number),
        account: ACCOUNTS.sales.name,
      },
      expect.objectContaining({
        requestId: notFound.headers.get("X-Request-Id"),
        route: "/v1.1/special-events/:eventId",
        status: 404,
        account: ACCOUNTS.admin.name,
      }),
      // An unmatched path is not echoed into the log.
      expect.objectContaining({ requestId: unknown.headers.get("X-Request-Id"), route: null, status: 404, account: null }),
    ]);
  });
});

describe("nothing private reaches the logs", () => {
  it("a purchase with e-mail and phone, its image, a failed login, an unexpected error", async () => {
    const email = "private.buyer+logtest@example.com";
    const phone = "+1 (555) 010-4242";
    const password = "Wr0ng-Pa55word-for-the-log-test";
    const badAuthorization = basic(ACCOUNTS.admin.name, password);
    const idempotencyKey = "log-test-key-1";

    const purchase = await api("/v1.1/tickets", {
      method: "POST",
      as: "sales",
      json: { ticketType: "general", ticketDate: openDay(), email, phone },
      headers: { "Idempotency-Key": idempotencyKey },
    });
    expect(purchase.status).toBe(201);
    const ticket = (await purchase.json()) as { ticketId: string; ticketType: "general"; ticketDate: string };
    const image = await api(`/v1.1/tickets/${ticket.ticketId}/qr`, { as: "sales" });
    expect(image.status).toBe(200);
    const token = await ticketCodeOf(ticket.ticketId);

    const failed = await api("/v1.1/museum-hours", { as: null, headers: { Authorization: badAuthorization } });
    expect(failed.status).toBe(401);
    // A purchase whose batch fails with an unexpected error: the error line carries the stack, not the body.
    injectD1Faults({ on: "batch", sql: "INSERT INTO tickets", message: "unexpected failure in the test" });
    const broken = await api("/v1.1/tickets", {
      method: "POST",
      as: "sales",
      json: { ticketType: "general", ticketDate: openDay(), email, phone },
    });
    expect(broken.status).toBe(500);

    const output = captured().join("\n");
    const secrets = {
      email,
      "e-mail local part": "private.buyer",
      phone,
      "phone digits": "010-4242",
      password,
      "Authorization header": badAuthorization,
      "its base64": badAuthorization.slice("Basic ".length),
      "the sales account's secret": ACCOUNTS.sales.secret,
      "the sales Authorization header": basic(ACCOUNTS.sales.name, ACCOUNTS.sales.secret),
      "QR token": token,
      "QR token signature": token.split(".").at(-1)!,
      "signing key": env.TICKET_SIGNING_KEY,
    };
    for (const [what, value] of Object.entries(secrets)) {
      expect(output.includes(value), `${what} appears in the logs`).toBe(false);
    }

    // And the lines are there: one per request, one for the error.
    const lines = jsonLines();
    const requests = lines.filter((line) => line.message === "request");
    expect(requests.map((line) => [line.route, line.status, line.account])).toEqual([
      ["/v1.1/tickets", 201, ACCOUNTS.sales.name],
      ["/v1.1/tickets/:ticketId/qr", 200, ACCOUNTS.sales.name],
      ["/v1.1/museum-hours", 401, null],
      ["/v1.1/tickets", 500, ACCOUNTS.sales.name],
    ]);
    const errors = lines.filter((line) => line.level === "error");
    expect(errors).toEqual([
      expect.objectContaining({
        message: "unhandled error",
        requestId: broken.headers.get("X-Request-Id"),
        error: "Error: unexpected failure in the test",
      }),
    ]);
  });

  it("a confirmation code (any case) never reaches the logs: looked up found, hidden or malformed, or answered in a status", async () => {
    const purchase = await api("/v1.1/tickets", { method: "POST", as: "sales", json: { ticketType: "general", ticketDate: openDay(), email: "visitor@example.com" } });
    expect(purchase.status).toBe(201);
    const { ticketId, confirmationCode } = (await purchase.json()) as { ticketId: string; confirmationCode: string };
    const lookUp = (code: string, as: "sales" | "kiosk") => api(`/v1.1/tickets?confirmationCode=${encodeURIComponent(code)}`, { as });
    expect((await lookUp(`  ${confirmationCode.toUpperCase()} `, "sales")).status).toBe(200);
    expect((await lookUp(confirmationCode, "kiosk")).status).toBe(404);
    expect((await lookUp(`${confirmationCode}-x`, "sales")).status).toBe(400);
    const status = await api(`/v1.1/tickets/${ticketId}`, { as: "sales" });
    expect(((await status.json()) as { confirmationCode: string }).confirmationCode).toBe(confirmationCode);

    const output = captured().join("\n");
    const random = confirmationCode.slice("ticket-general-".length);
    for (const value of [random, random.toUpperCase(), random.slice(0, 6), random.slice(-5)]) {
      expect(output.includes(value), `${value} appears in the logs`).toBe(false);
    }
    const requests = jsonLines().filter((line) => line.message === "request");
    expect(requests.map((line) => [line.route, line.status])).toEqual([
      ["/v1.1/tickets", 201],
      ["/v1.1/tickets", 200],
      ["/v1.1/tickets", 404],
      ["/v1.1/tickets", 400],
      ["/v1.1/tickets/:ticketId", 200],
    ]);
  });

  it("the logger redacts fields named like secrets or buyer data, at any depth", () => {
    log.info("careless", {
      headers: { Authorization: "Basic c2VjcmV0", "content-type": "application/json" },
      body: { email: "a@example.com", phone: "12345", nested: [{ password: "p", token: "t" }] },
      route: "/v1.1/tickets",
    });
    const [line] = jsonLines();
    expect(line).toEqual({
      level: "info",
      message: "careless",
      headers: { Authorization: "[redacted]", "content-type": "application/json" },
      body: { email: "[redacted]", phone: "[redacted]", nested: [{ password: "[redacted]", token: "[redacted]" }] },
      route: "/v1.1/tickets",
    });
  });
});
