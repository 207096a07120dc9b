// Failed-login throttling (contract: "Repeated failed logins from one client
// are slowed down: 429 with Retry-After"), through the real Worker and D1.
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { loginFailurePolicy } from "../../src/accounts/login-failures";
import { configurationOf } from "../../src/configuration";
import { clientKey } from "../../src/middleware/login-throttle";
import { useClock } from "../support/clock";
import { ACCOUNTS, api, basic, dumpDatabase, expectProblem } from "../support/helpers";

const HOURS = "/v1.1/museum-hours";
const BUDGET = Number(env.LOGIN_FAILURE_BUDGET);
const WINDOW_SECONDS = Number(env.LOGIN_FAILURE_WINDOW_SECONDS);
const wrong = basic(ACCOUNTS.admin.name, "not-the-password");
const right = basic(ACCOUNTS.admin.name, ACCOUNTS.admin.secret);

let nextClient = 1;
/** An address no other test of this file uses. */
function newClient(): string {
  nextClient += 1;
  return `203.0.113.${nextClient}`;
}

function from(ip: string, authorization: string | null, path = HOURS, init: { method?: string; json?: unknown } = {}) {
  return api(path, {
    as: null,
    method: init.method,
    json: init.json,
    headers: { "CF-Connecting-IP": ip, ...(authorization ? { Authorization: authorization } : {}) },
  });
}

async function failLogins(ip: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await from(ip, wrong);
    await expectProblem(res, 401);
  }
}

async function expectThrottled(res: Response): Promise<number> {
  const problem = await expectProblem(res, 429);
  expect(problem.title).toBe("Too Many Requests");
  expect(res.headers.get("WWW-Authenticate")).toBeNull();
  const retryAfter = res.headers.get("Retry-After");
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  return Number(retryAfter);
}

describe("configuration", () => {
  it("wrangler.toml sets the budget and the window", () => {
    expect(BUDGET).toBe(10);
    expect(WINDOW_SECONDS).toBe(300);
    expect(loginFailurePolicy(configurationOf(env).settings)).toEqual({ budget: 10, windowMs: 300_000 });
  });

  it("reads other values, and falls back to the default for a missing or unusable one", () => {
    // A malformed value is logged as it is parsed (test/configuration.test.ts checks the line).
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const settingsOf = (vars: object) => configurationOf(vars).settings;
    expect(loginFailurePolicy(settingsOf({ LOGIN_FAILURE_BUDGET: "3", LOGIN_FAILURE_WINDOW_SECONDS: "60" }))).toEqual({
      budget: 3,
      windowMs: 60_000,
    });
    for (const bad of [undefined, "", "0", "-1", "ten", "1e3", "99999999999"]) {
      expect(loginFailurePolicy(settingsOf({ LOGIN_FAILURE_BUDGET: bad, LOGIN_FAILURE_WINDOW_SECONDS: bad }))).toEqual({
        budget: 10,
        windowMs: 300_000,
      });
    }
    warn.mockRestore();
  });

  it("keys clients by IPv4 address and by IPv6 /64", () => {
    expect(clientKey("198.51.100.7")).toBe("198.51.100.7");
    expect(clientKey("2001:db8:1:2::a")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(clientKey("::1")).toBe("::/64");
    expect(clientKey("2001:db8:0:0:1::1")).toBe("2001:db8::/64");
    expect(clientKey("fe80::1%eth0")).toBe("fe80::/64");
    expect(clientKey("::ffff:c633:6407")).toBe("198.51.100.7");
    expect(clientKey("2001:db8::1::2")).toBe("2001:db8::1::2"); // not an address: kept as sent, cut to 64 characters
    expect(clientKey("198.51.100.300")).toBe("198.51.100.300");
    expect(clientKey(undefined)).toBe("unknown");
    expect(clientKey("  ")).toBe("unknown");
    expect(clientKey("x".repeat(500))).toHaveLength(64);
  });
});

describe("failed logins", () => {
  it(`are allowed up to the budget; then the client gets 429 with Retry-After, valid credentials included`, async () => {
    const ip = newClient();
    await failLogins(ip, BUDGET);
    const retryAfter = await expectThrottled(await from(ip, right));
    expect(retryAfter).toBeGreaterThan(WINDOW_SECONDS - 10);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    await expectThrottled(await from(ip, wrong));
    // Writes are refused too, and nothing is written.
    await expectThrottled(
      await from(ip, right, "/v1.1/special-events", {
        method: "POST",
        json: { name: "x", location: "y", eventDescription: "z", dates: ["2090-01-01"], price: 1 },
      }),
    );
    // Another client is not affected.
    expect((await from(newClient(), right)).status).toBe(200);
  });

  it("a request without credentials is neither counted nor throttled (it is not a login)", async () => {
    const ip = newClient();
    for (let i = 0; i < BUDGET + 5; i++) await expectProblem(await from(ip, null), 401);
    expect((await from(ip, right)).status).toBe(200);
    await failLogins(ip, BUDGET);
    await expectProblem(await from(ip, null), 401);
  });

  it("counts unknown users and wrong passwords alike", async () => {
    const ip = newClient();
    for (let i = 0; i < BUDGET; i++) {
      const auth = i % 2 === 0 ? wrong : basic(`nobody-${i}`, "whatever");
      await expectProblem(await from(ip, auth), 401);
    }
    await expectThrottled(await from(ip, right));
  });

  it("successful logins never count, nor reset the count", async () => {
    const ip = newClient();
    await failLogins(ip, BUDGET - 1);
    for (let i = 0; i < 15; i++) expect((await from(ip, right)).status).toBe(200);
    await failLogins(ip, 1);
    await expectThrottled(await from(ip, right));
  });

  it("a successful login leaves nothing written (its counted attempt is forgiven)", async () => {
    const ip = newClient();
    const before = await dumpDatabase();
    for (let i = 0; i < 5; i++) expect((await from(ip, right)).status).toBe(200);
    expect(await dumpDatabase()).toBe(before);
  });

  it("the window starts at the first failure; once it has passed, the client is let in and counted afresh", async () => {
    const start = Date.parse("2031-03-03T12:00:00Z");
    useClock(new Date(start).toISOString());
    const ip = newClient();
    await failLogins(ip, BUDGET);
    expect(await expectThrottled(await from(ip, right))).toBe(WINDOW_SECONDS);

    useClock(new Date(start + 100_000).toISOString());
    expect(await expectThrottled(await from(ip, right))).toBe(WINDOW_SECONDS - 100);

    useClock(new Date(start + (WINDOW_SECONDS - 1) * 1000 + 500).toISOString());
    expect(await expectThrottled(await from(ip, right))).toBe(1);

    useClock(new Date(start + WINDOW_SECONDS * 1000).toISOString());
    expect((await from(ip, right)).status).toBe(200);
    // A new window: the budget is whole again.
    await failLogins(ip, BUDGET);
    await expectThrottled(await from(ip, right));
  });

  it("an IPv6 client is counted by its /64", async () => {
    const network = "2001:db8:77:1";
    for (let i = 0; i < BUDGET; i++) await expectProblem(await from(`${network}::${(i + 1).toString(16)}`, wrong), 401);
    await expectThrottled(await from(`${network}:ffff:ffff:ffff:fffe`, right));
    expect((await from("2001:db8:77:2::1", right)).status).toBe(200);
  });

  it("the hourly Cron Trigger forgets windows that have passed and keeps current ones", async () => {
    const start = Date.parse("2032-05-05T08:00:00Z");
    useClock(new Date(start).toISOString());
    const old = newClient();
    await failLogins(old, 2);
    useClock(new Date(start + WINDOW_SECONDS * 1000 + 1).toISOString());
    const current = newClient();
    await failLogins(current, 2);

    await worker.scheduled(createScheduledController({ cron: "17 * * * *" }), env);

    const { results } = await env.DB.prepare("SELECT client_key FROM login_failures WHERE client_key IN (?1, ?2)")
      .bind(old, current)
      .all<{ client_key: string }>();
    expect(results.map((r) => r.client_key)).toEqual([current]);
  });
});

describe("the login memory under a burst (security review, issue 23)", () => {
  // The race lost 5 rounds of 8 before the fix (here it lost the first
  // round), so every round must hold now. Sent through api(): requests to the
  // Worker's default export called directly did not interleave enough to
  // show the race. Three rounds, since each request through that path is
  // slower than the one before (docs/hardening.md, "Fuzzing").
  const ROUNDS = 3;
  const BURST = 100;

  it(`${BURST} concurrent logins alternating right and wrong passwords: afterwards the right password is 429, ${ROUNDS} rounds out of ${ROUNDS}`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ip = newClient();
      // One place left, and a remembered login, as a working client has
      // before the burst: the first wrong password in the burst fills the
      // budget (the remembered right ones are not counted).
      await failLogins(ip, BUDGET - 1);
      expect((await from(ip, right)).status).toBe(200);
      const burst = await Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          const res = await from(ip, i % 2 === 0 ? right : wrong);
          await res.arrayBuffer();
          return { right: i % 2 === 0, status: res.status };
        }),
      );
      // Of the wrong ones, the one place left gets a 401 verdict; the rest are 429.
      const wrongStatuses = burst.filter((r) => !r.right).map((r) => r.status);
      expect(wrongStatuses.every((s) => s === 401 || s === 429)).toBe(true);
      expect(wrongStatuses.filter((s) => s === 401).length).toBe(1);
      expect(burst.filter((r) => r.right).every((r) => r.status === 200 || r.status === 429)).toBe(true);

      await expectThrottled(await from(ip, right));
      await expectThrottled(await from(ip, right));
    }
  }, 60_000);
});

// Bursts through api() slow down as the file runs (see the burst test above): a generous timeout.
describe("failed-login throttle under a burst", { timeout: 60_000 }, () => {
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
