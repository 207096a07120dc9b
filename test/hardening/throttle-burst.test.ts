// Failed-login throttling under bursts (attack review, issue 29): every
// login is counted before its password is checked, and a correct one is
// forgiven, so a burst buys no more checks than the budget. Its own file: a
// test file's requests through api() slow down as it runs (docs/hardening.md,
// "Fuzzing"), and test/hardening/throttle.test.ts already sends hundreds.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { holdD1Batches } from "../support/d1-faults";
import { ACCOUNTS, api, basic, expectProblem, insertAccount } from "../support/helpers";

const HOURS = "/v1.1/museum-hours";
const BUDGET = Number(env.LOGIN_FAILURE_BUDGET);
const wrong = basic(ACCOUNTS.admin.name, "not-the-password");

let nextClient = 1;
/** An address no other test of this file uses. */
function newClient(): string {
  nextClient += 1;
  return `198.51.100.${nextClient}`;
}

function from(ip: string, authorization: string) {
  return api(HOURS, { as: null, headers: { "CF-Connecting-IP": ip, Authorization: authorization } });
}

async function failLogins(ip: string, count: number) {
  for (let i = 0; i < count; i++) await expectProblem(await from(ip, wrong), 401);
}

async function expectThrottled(res: Response) {
  await expectProblem(res, 429);
  expect(res.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
}

describe("every login is counted before its password is checked (attack review, issue 29)", { timeout: 30_000 }, () => {
  // Each correct password belongs to its own account, so no login is
  // remembered and every request has its password checked against D1.
  let accountSeq = 0;
  async function newAccounts(count: number): Promise<string[]> {
    const logins: string[] = [];
    for (let i = 0; i < count; i++) {
      accountSeq += 1;
      const name = `burst-${accountSeq}`;
      const secret = `secret-of-${name}-${crypto.randomUUID()}`;
      await insertAccount(name, secret, "sales");
      logins.push(basic(name, secret));
    }
    return logins;
  }

  /** The forgiveness of correct logins, held back: their attempts stay counted until `release()`. */
  const holdForgiveness = () => holdD1Batches("DELETE FROM login_failures WHERE client_key");

  async function until(condition: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(condition(), what).toBe(true);
  }

  it("an attempt being checked takes a place in the budget: with one place left, a concurrent correct login is 429", async () => {
    const [first, second] = await newAccounts(2);
    const ip = newClient();
    await failLogins(ip, BUDGET - 1);
    const hold = holdForgiveness();
    try {
      const pending = from(ip, first!);
      await until(() => hold.waiting() === 1, "the first login was checked and waits to be forgiven");
      await expectThrottled(await from(ip, second!));
      hold.release();
      expect((await pending).status).toBe(200);
    } finally {
      hold.release();
    }
    // Forgiven, and the 429 in between took no place: the last place is free again.
    expect((await from(ip, second!)).status).toBe(200);
    await failLogins(ip, 1);
    await expectThrottled(await from(ip, first!));
  });

  it("a burst that arrives at once, correct and wrong passwords mixed: exactly the budget are checked, every other one is 429", async () => {
    const RIGHT = 20;
    const rights = await newAccounts(RIGHT);
    const ip = newClient();
    const hold = holdForgiveness();
    let answered = 0;
    let burst: { right: boolean; status: number }[];
    try {
      const responses = Promise.all(
        rights.flatMap((right) => [right, wrong]).map(async (authorization) => {
          const res = await from(ip, authorization);
          await res.arrayBuffer();
          answered += 1;
          return { right: authorization !== wrong, status: res.status };
        }),
      );
      // Every request counted before any correct one is forgiven.
      await until(() => answered + hold.waiting() === 2 * RIGHT, "every request answered or waiting to be forgiven");
      hold.release();
      burst = await responses;
    } finally {
      hold.release();
    }
    const statuses = burst.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 401 || s === 429)).toBe(true);
    // A checked password answers 200 or 401: as many as the budget, no more.
    expect(statuses.filter((s) => s === 200 || s === 401).length).toBe(BUDGET);
    expect(burst.filter((r) => r.right && r.status === 429).length).toBeGreaterThanOrEqual(RIGHT - BUDGET);
    expect(burst.filter((r) => !r.right).every((r) => r.status === 401 || r.status === 429)).toBe(true);
    // The correct ones were forgiven; the failures stay counted.
    const failed = statuses.filter((s) => s === 401).length;
    for (let i = failed; i < BUDGET; i++) await expectProblem(await from(ip, wrong), 401);
    await expectThrottled(await from(ip, rights[0]!));
  });

  it("the same burst as it comes: at most the budget of 401s, and the count afterwards is exact", async () => {
    const RIGHT = 20;
    const rights = await newAccounts(RIGHT);
    const ip = newClient();
    const burst = await Promise.all(
      rights.flatMap((right) => [right, wrong]).map(async (authorization) => {
        const res = await from(ip, authorization);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(burst.every((s) => s === 200 || s === 401 || s === 429)).toBe(true);
    const failed = burst.filter((s) => s === 401).length;
    expect(failed).toBeLessThanOrEqual(BUDGET);
    for (let i = failed; i < BUDGET; i++) await expectProblem(await from(ip, wrong), 401);
    await expectThrottled(await from(ip, rights[0]!));
  });

  it("a correct login is forgiven: more of them than the budget, then the budget of failures is whole", async () => {
    const rights = await newAccounts(BUDGET + 5);
    const ip = newClient();
    for (const right of rights) expect((await from(ip, right)).status).toBe(200);
    await failLogins(ip, BUDGET);
    await expectThrottled(await from(ip, rights[0]!));
  });

  it("concurrent correct logins at the edge of the budget leave the count of failures as it was", async () => {
    const rights = await newAccounts(6);
    const ip = newClient();
    await failLogins(ip, BUDGET - 1);
    const statuses = await Promise.all(rights.map(async (right) => (await from(ip, right)).status));
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(statuses).toContain(200);
    await failLogins(ip, 1);
    await expectThrottled(await from(ip, rights[0]!));
  });

  it("a correct login leaves nothing behind in login_failures; a failed one stays counted", async () => {
    const [right] = await newAccounts(1);
    const ip = newClient();
    const windows = async () =>
      (await env.DB.prepare("SELECT failures FROM login_failures WHERE client_key = ?1").bind(ip).all<{ failures: number }>()).results;
    expect((await from(ip, right!)).status).toBe(200);
    expect(await windows()).toEqual([]);
    await failLogins(ip, 2);
    expect((await from(ip, right!)).status).toBe(200);
    expect(await windows()).toEqual([{ failures: 2 }]);
    await expectProblem(await from(ip, basic("nobody-here", "whatever")), 401);
    expect(await windows()).toEqual([{ failures: 3 }]);
  });
});
