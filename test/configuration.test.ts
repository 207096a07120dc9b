// The Worker's configuration (src/configuration): parsed once per env object
// (once per isolate), a plain setting that is missing or unusable falls back
// to its production default, and what has no default (the currency, the key
// sets) is refused where it is needed: 503 not-configured before anything is
// written, while what needs none keeps working. The sale's own cases and
// /healthz: test/sales/configuration.test.ts.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { configurationOf, need } from "../src/configuration";
import { parseSettings } from "../src/configuration/settings";
import { ProblemError } from "../src/http/problem";
import { api, dumpDatabase, expectProblem, plusDays, todayInZone } from "./support/helpers";
import { ticketCodeOf } from "./support/ticket-codes";
import { setTestVars } from "./support/worker";
import { buy, cancel, order, type OrderResponse, type PurchaseResponse } from "./tickets/fixtures";

afterEach(() => setTestVars());

describe("configurationOf", () => {
  it("reads wrangler.toml's values as typed settings", () => {
    expect(configurationOf({ ...env, WEBHOOK_ALLOW_LOOPBACK: "false", PRERENDER_TICKET_IMAGES: "true" })).toMatchObject({
      settings: {
        MUSEUM_TIMEZONE: "America/New_York",
        ADMISSION_EARLY_MINUTES: 15,
        LOGIN_FAILURE_BUDGET: 10,
        LOGIN_FAILURE_WINDOW_SECONDS: 300,
        WEBHOOK_ALLOW_LOOPBACK: false,
        PRERENDER_TICKET_IMAGES: true,
      },
      currency: { value: "USD", problem: null },
    });
  });

  it("falls back to the production default for a missing, malformed or out-of-range value, and logs each malformed one", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const config = configurationOf({
      MUSEUM_TIMEZONE: "Mars/Olympus_Mons",
      CURRENCY: "euro",
      ADMISSION_EARLY_MINUTES: "fifteen",
      WEBHOOK_MAX_ATTEMPTS: "99",
      WEBHOOK_ALLOW_LOOPBACK: "yes",
      PRERENDER_TICKET_IMAGES: "TRUE",
    });
    expect(config).toMatchObject({
      settings: {
        MUSEUM_TIMEZONE: "America/New_York",
        ADMISSION_EARLY_MINUTES: 15,
        WEBHOOK_MAX_ATTEMPTS: 8,
        WEBHOOK_ALLOW_LOOPBACK: false,
        PRERENDER_TICKET_IMAGES: false,
        CORS_ALLOWED_ORIGINS: "",
      },
      currency: { value: null, problem: "CURRENCY is missing or malformed." },
    });
    const warnings = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as { setting: string; default: string });
    warn.mockRestore();
    expect(warnings.map((line) => [line.setting, line.default])).toEqual([
      ["MUSEUM_TIMEZONE", "America/New_York"],
      ["ADMISSION_EARLY_MINUTES", "15"],
      ["WEBHOOK_MAX_ATTEMPTS", "8"],
      ["WEBHOOK_ALLOW_LOOPBACK", "false"],
      ["PRERENDER_TICKET_IMAGES", "false"],
    ]);
  });

  it("parses an env object once", () => {
    const vars = { ADMISSION_EARLY_MINUTES: "30" };
    expect(configurationOf(vars)).toBe(configurationOf(vars));
    expect(configurationOf(vars).settings.ADMISSION_EARLY_MINUTES).toBe(30);
    expect(configurationOf(vars)).toMatchObject({ currency: { value: null } });
  });

  it("reads the museum's clock in MUSEUM_TIMEZONE", () => {
    const at = new Date("2026-12-02T13:00:00Z");
    expect(configurationOf({ MUSEUM_TIMEZONE: "Pacific/Auckland" }).museumNow(at)).toEqual({ today: "2026-12-03", time: "02:00", utcOffsetMinutes: 780 });
    expect(configurationOf(env).museumNow(at)).toEqual({ today: "2026-12-02", time: "08:00", utcOffsetMinutes: -300 });
  });

  it("names each setting whose value does not parse, with what it expects and the default used (never the value)", () => {
    expect(parseSettings({ ADMISSION_EARLY_MINUTES: "fifteen", CURRENCY: "euro", WEBHOOK_ALLOW_LOOPBACK: "false" }).issues).toEqual([
      { name: "CURRENCY", expects: 'an ISO 4217 code such as "USD"', missing: false, fallback: null },
      { name: "ADMISSION_EARLY_MINUTES", expects: "a whole number from 0 to 240", missing: false, fallback: "15" },
    ]);
    // Left out, a plain setting takes its default silently; the currency has none.
    expect(parseSettings({}).issues).toEqual([{ name: "CURRENCY", expects: 'an ISO 4217 code such as "USD"', missing: true, fallback: null }]);
    expect(parseSettings(env).issues).toEqual([]);
  });
});

describe("need", () => {
  it("gives what an operation needs, or 503 not-configured naming no setting", () => {
    expect(need(configurationOf(env), "currency")).toEqual({ currency: "USD" });
    const broken = configurationOf({ ...env, CURRENCY: "euro", TICKET_SIGNING_KEY: "short-key" });
    expect(need(broken, "codeKeys").codeKeys.keys.map((key) => key.kid)).toEqual(["T1", "T2"]);
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const name of ["currency", "signingKeys"] as const) {
      let refusal: unknown;
      try {
        need(broken, "codeKeys", name);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ProblemError);
      expect((refusal as ProblemError).status).toBe(503);
      expect((refusal as ProblemError).problem.type).toBe("/problems/not-configured");
      expect(JSON.stringify((refusal as ProblemError).problem)).not.toMatch(/CURRENCY|TICKET_SIGNING_KEY|short-key|euro/);
    }
    vi.restoreAllMocks();
  });
});

describe("the Worker's configuration", () => {
  it("is parsed once per env object, which the runtime keeps for the isolate: one warning for a malformed setting, not one per request", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    setTestVars({ ADMISSION_EARLY_MINUTES: "fifteen" });
    for (let i = 0; i < 3; i++) {
      const res = await api("/v1.1/gate/config", { as: "gate" });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { admissionEarlyMinutes: number }).admissionEarlyMinutes).toBe(15);
    }
    const warnings = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    warn.mockRestore();
    expect(warnings).toEqual([{ level: "warn", message: "setting malformed: its default is used", setting: "ADMISSION_EARLY_MINUTES", default: "15" }]);
  });
});

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);
// A Monday four weeks ahead: open by the weekly schedule.
const DAY = (() => {
  let day = plusDays(TODAY, 28);
  while (new Date(`${day}T12:00:00Z`).getUTCDay() !== 1) day = plusDays(day, 1);
  return day;
})();

/** What the operations below act on, made under the complete configuration. */
async function fixtures() {
  const sold = (await (await buy({ ticketType: "general", ticketDate: DAY, email: "config@example.com" })).json()) as PurchaseResponse;
  const reference = `config-${crypto.randomUUID()}`;
  const confirmed = (await (await order({ email: "config@example.com", reference, tickets: [{ ticketType: "general", ticketDate: DAY }] })).json()) as OrderResponse;
  const held = (await (await order({ holdMinutes: 15, tickets: [{ ticketType: "general", ticketDate: DAY }] })).json()) as OrderResponse;
  expect([sold.ticketId, confirmed.orderId, held.status]).toEqual([expect.any(String), expect.any(String), "held"]);
  return { sold, reference, confirmed, held, code: await ticketCodeOf(sold.ticketId) };
}
type Fixtures = Awaited<ReturnType<typeof fixtures>>;

const CURRENCY = { CURRENCY: "euro" };
const CODE_KEYS = { TICKET_CODE_KEYS: '{"keys":[]}' };
const SIGNING_KEY = { TICKET_SIGNING_KEY: "short-key" };

/** Each operation that needs what has no default, and the settings it needs. */
const NEEDING: [string, (f: Fixtures) => Promise<Response>, object[]][] = [
  ["POST /tickets", () => buy({ ticketType: "general", ticketDate: DAY, email: "config@example.com" }, { key: crypto.randomUUID() }), [CURRENCY, CODE_KEYS, SIGNING_KEY]],
  ["POST /orders", () => order({ holdMinutes: 10, tickets: [{ ticketType: "general", ticketDate: DAY }] }), [CURRENCY, CODE_KEYS, SIGNING_KEY]],
  ["POST /orders/{id}/confirmation", (f) => api(`/v1.1/orders/${f.held.orderId}/confirmation`, { method: "POST", as: "sales", json: { email: "config@example.com" } }), [CURRENCY, CODE_KEYS, SIGNING_KEY]],
  ["POST /orders/{id}/hold", (f) => api(`/v1.1/orders/${f.held.orderId}/hold`, { method: "POST", as: "sales", json: { holdMinutes: 30 } }), [CURRENCY]],
  ["GET /orders/{id}", (f) => api(`/v1.1/orders/${f.confirmed.orderId}`, { as: "sales" }), [CURRENCY]],
  ["GET /orders?reference=", (f) => api(`/v1.1/orders?reference=${f.reference}`, { as: "sales" }), [CURRENCY]],
  ["GET /tickets/{id}", (f) => api(`/v1.1/tickets/${f.sold.ticketId}`, { as: "sales" }), [CURRENCY]],
  ["GET /tickets?confirmationCode=", (f) => api(`/v1.1/tickets?confirmationCode=${f.sold.confirmationCode}`, { as: "sales" }), [CURRENCY]],
  ["POST /tickets/{id}/cancellation", (f) => cancel(`/tickets/${f.sold.ticketId}`, {}, { as: "boxOffice", key: crypto.randomUUID() }), [CURRENCY]],
  ["POST /orders/{id}/cancellation", (f) => cancel(`/orders/${f.confirmed.orderId}`, {}, { as: "boxOffice" }), [CURRENCY]],
  ["GET /cancellations", () => api("/v1.1/cancellations", { as: "boxOffice" }), [CURRENCY]],
  ["GET /tickets/{id}/qr", (f) => api(`/v1.1/tickets/${f.sold.ticketId}/qr`, { as: "sales" }), [CODE_KEYS]],
  ["GET /gate/keys", () => api("/v1.1/gate/keys", { as: "gate" }), [CODE_KEYS]],
  ["POST /admissions", (f) => api("/v1.1/admissions", { method: "POST", as: "gate", json: { code: f.code }, headers: { "Idempotency-Key": crypto.randomUUID() } }), [CODE_KEYS, SIGNING_KEY]],
  [
    "POST /admissions/offline",
    (f) =>
      api("/v1.1/admissions/offline", {
        method: "POST",
        as: "gate",
        json: { sentAt: new Date().toISOString(), scans: [{ scanId: crypto.randomUUID(), code: f.code, scannedAt: new Date().toISOString() }] },
      }),
    [CODE_KEYS, SIGNING_KEY],
  ],
];

/** Operations that need nothing without a default: they keep answering. */
const NEEDING_NOTHING: [string, () => Promise<Response>][] = [
  ["GET /museum-hours", () => api("/v1.1/museum-hours?limit=2", { as: "sales" })],
  ["GET /special-events", () => api("/v1.1/special-events", { as: "sales" })],
  ["GET /availability", () => api(`/v1.1/availability?date=${DAY}`, { as: "sales" })],
  ["GET /gate/config", () => api("/v1.1/gate/config", { as: "gate" })],
  ["GET /admissions/summary", () => api("/v1.1/admissions/summary", { as: "admin" })],
];

describe("an operation under an incomplete configuration", () => {
  for (const [operation, send, needs] of NEEDING) {
    it(`${operation}: 503 not-configured before anything is written, for each setting it needs`, async () => {
      const made = await fixtures();
      vi.spyOn(console, "error").mockImplementation(() => {});
      for (const broken of needs) {
        setTestVars(broken);
        const before = await dumpDatabase({ except: ["login_failures"] });
        const problem = await expectProblem(await send(made), 503);
        expect(problem.type, JSON.stringify(broken)).toBe("/problems/not-configured");
        expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
      }
      vi.restoreAllMocks();
      setTestVars();
      expect((await send(made)).status, "and answers once the configuration is complete").not.toBe(503);
    });
  }

  it("keeps answering what needs none of it", async () => {
    for (const broken of [CURRENCY, CODE_KEYS, SIGNING_KEY]) {
      setTestVars(broken);
      for (const [operation, send] of NEEDING_NOTHING) expect((await send()).status, `${operation} with ${JSON.stringify(broken)}`).toBe(200);
    }
  });
});
