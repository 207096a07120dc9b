import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ProblemError } from "../../src/http/problem";
import { claimIdempotencyKey, purgeExpiredIdempotencyKeys } from "../../src/idempotency/keys";
import type { Db } from "../../src/platform/batch";
import { sell } from "../../src/sales/sell";
import { sha256Hex } from "../../src/platform/crypto";
import { dumpDatabase, expectProblem, expectValidationError } from "../support/helpers";
import { useClock } from "../support/clock";
import { buy, type PurchaseResponse } from "./fixtures";

const NOW = "2026-12-01T15:00:00Z";
const body = { ticketType: "general", ticketDate: "2026-12-02", email: "todd@example.com" };

async function ticketCount(email: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM tickets WHERE buyer_email = ?1").bind(email).first<{ n: number }>();
  return row!.n;
}

beforeEach(() => useClock(NOW));

describe("Idempotency-Key on POST /tickets", () => {
  it("replays the first 201 byte for byte and buys nothing more", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    const first = await buy({ ...body, email }, { key });
    expect(first.status).toBe(201);
    const firstText = await first.text();
    const again = await buy({ ...body, email }, { key });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await again.text()).toBe(firstText);
    expect(await ticketCount(email)).toBe(1);
  });

  it("treats the same fields in another order as the same body", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    const first = await (await buy({ ticketType: "general", ticketDate: "2026-12-02", email }, { key })).text();
    const reordered = await buy({ email, ticketDate: "2026-12-02", ticketType: "general" }, { key });
    expect(await reordered.text()).toBe(first);
    expect(await ticketCount(email)).toBe(1);
  });

  it("answers 422 for the same key with a different body", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    expect((await buy({ ...body, email }, { key })).status).toBe(201);
    const before = await dumpDatabase();
    await expectProblem(await buy({ ...body, email, ticketDate: "2026-12-03" }, { key }), 422);
    expect(await dumpDatabase()).toBe(before);
  });

  it("answers 422 when the key's first request, still running, had another body", async () => {
    const key = crypto.randomUUID();
    await claimIdempotencyKey(env.DB, { accountName: "test-sales", operation: "buyMuseumTickets", key }, "a-request-in-flight");
    const res = await buy({ ...body, email: `${key}@example.com` }, { key });
    await expectProblem(res, 422);
  });

  it("answers 409 with Retry-After for the same body in flight", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    // Claim the key with this very body, as a concurrent first request would.
    const canonical = JSON.stringify({ email, ticketDate: body.ticketDate, ticketType: body.ticketType });
    await claimIdempotencyKey(env.DB, { accountName: "test-sales", operation: "buyMuseumTickets", key }, await sha256Hex(canonical));
    const res = await buy({ ...body, email }, { key });
    await expectProblem(res, 409);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(await ticketCount(email)).toBe(0);
  });

  it("takes over a claim abandoned for over a minute", async () => {
    const key = crypto.randomUUID();
    await claimIdempotencyKey(env.DB, { accountName: "test-sales", operation: "buyMuseumTickets", key }, "crashed", new Date("2026-12-01T14:58:00Z"));
    expect((await buy({ ...body, email: `${key}@example.com` }, { key })).status).toBe(201);
  });

  it("keeps keys per account: another account gets its own ticket", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    const mine = (await (await buy({ ...body, email }, { key, as: "sales" })).json()) as PurchaseResponse;
    const theirs = await buy({ ...body, email }, { key, as: "admin" });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("Idempotent-Replayed")).toBeNull();
    expect(((await theirs.json()) as PurchaseResponse).ticketId).not.toBe(mine.ticketId);
    expect(await ticketCount(email)).toBe(2);
  });

  it("releases the key when the purchase is refused, so a corrected retry works", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    const before = await dumpDatabase();
    await expectValidationError(await buy({ ...body, email, ticketDate: "2026-12-05" }, { key }), "ticketDate");
    expect(await dumpDatabase()).toBe(before);
    // A different body after a failure is a fresh start, not a 422.
    expect((await buy({ ...body, email }, { key })).status).toBe(201);
  });

  it("forgets a key after 24 hours", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    expect((await buy({ ...body, email }, { key })).status).toBe(201);
    useClock("2026-12-02T15:00:01Z");
    const later = await buy({ ...body, email, ticketDate: "2026-12-03" }, { key });
    expect(later.status).toBe(201);
    expect(later.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await ticketCount(email)).toBe(2);
  });

  it("gives exactly one ticket for 20 concurrent purchases with one key", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    const responses = await Promise.all(Array.from({ length: 20 }, () => buy({ ...body, email }, { key })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses).toContain(201);
    const created = await Promise.all(responses.filter((r) => r.status === 201).map((r) => r.text()));
    expect(new Set(created).size).toBe(1);
    await Promise.all(responses.filter((r) => r.status === 409).map((r) => r.body?.cancel()));
    expect(await ticketCount(email)).toBe(1);
  });

  it.each([
    ["256 characters", "k".repeat(256)],
    ["a tab", "key\twith-tab"],
    ["non-ASCII", "clé"],
  ])("refuses a key of %s", async (_, key) => {
    const before = await dumpDatabase();
    await expectValidationError(await buy({ ...body, email: "x@example.com" }, { key }), "header.idempotency-key");
    expect(await dumpDatabase()).toBe(before);
  });

  it("accepts a key of 255 printable characters", async () => {
    expect((await buy({ ...body, email: "long-key@example.com" }, { key: "~".repeat(255) })).status).toBe(201);
  });
});

describe("idempotency key expiry", () => {
  it("purges only expired keys", async () => {
    const fresh = crypto.randomUUID();
    const old = crypto.randomUUID();
    await claimIdempotencyKey(env.DB, { accountName: "test-admin", operation: "buyMuseumTickets", key: old }, "h", new Date("2026-11-29T00:00:00Z"));
    await claimIdempotencyKey(env.DB, { accountName: "test-admin", operation: "buyMuseumTickets", key: fresh }, "h", new Date("2026-12-01T14:00:00Z"));
    const purged = await purgeExpiredIdempotencyKeys(env.DB, new Date(NOW));
    expect(purged).toBeGreaterThanOrEqual(1);
    const { results } = await env.DB.prepare(
      "SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key IN (?1, ?2)",
    ).bind(old, fresh).all<{ idempotency_key: string }>();
    expect(results.map((r) => r.idempotency_key)).toEqual([fresh]);
  });

  it("runs from the Worker's Cron Trigger", async () => {
    const key = crypto.randomUUID();
    await claimIdempotencyKey(env.DB, { accountName: "test-admin", operation: "buyMuseumTickets", key }, "h", new Date("2026-11-28T00:00:00Z"));
    await worker.scheduled(createScheduledController({ cron: "17 * * * *" }), env);
    const row = await env.DB.prepare("SELECT 1 FROM idempotency_keys WHERE idempotency_key = ?1").bind(key).first();
    expect(row).toBeNull();
  });
});

describe("a purchase stalled past the 60-second takeover", () => {
  const T = new Date(NOW);
  const LATER = new Date(T.getTime() + 61_000);
  const purchase = (email: string) => ({ ticketType: "general" as const, ticketDate: "2026-12-02", email });
  const request = (email: string) => ({ lines: [purchase(email)], email, addressing: "body" as const, body: purchase(email) });
  const context = (key: string, now: Date) => ({
    soldBy: "test-sales",
    museumNow: { today: "2026-12-01", time: "12:00", utcOffsetMinutes: -300 },
    idempotency: { operation: "buyMuseumTickets" as const, key },
    now,
    primaryDb: () => env.DB,
  });
  const sellOne = (db: Db, email: string, key: string, now: Date) =>
    sell(db, request(email), context(key, now), { of: (sale) => ({ ticketId: sale.tickets[0]!.ticketId }) });

  it("sells exactly one ticket: the stalled first request writes nothing and answers 409, the one that took over sells", async () => {
    const key = crypto.randomUUID();
    const email = `${key}@example.com`;
    // The first request's database stops before its sale's write until released.
    let reachedWrite!: () => void;
    const atWrite = new Promise<void>((resolve) => (reachedWrite = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const stalling: Db = {
      prepare: (sql) => env.DB.prepare(sql),
      batch: async (statements) => {
        // The key's claim is two statements; the sale's write is more.
        if (statements.length > 2) {
          reachedWrite();
          await resumed;
        }
        return env.DB.batch(statements);
      },
    };

    const first = sellOne(stalling, email, key, T);
    await atWrite;
    const second = await sellOne(env.DB, email, key, LATER);
    expect(second.replayed).toBe(false);
    const before = await dumpDatabase();
    resume();
    const problem = await first.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(problem).toBeInstanceOf(ProblemError);
    expect((problem as ProblemError).status).toBe(409);
    expect(await dumpDatabase()).toBe(before);

    expect(await ticketCount(email)).toBe(1);
    const row = await env.DB.prepare("SELECT response_body, resource_id FROM idempotency_keys WHERE idempotency_key = ?1")
      .bind(key)
      .first();
    expect(row).toEqual({ response_body: JSON.stringify(second.answer), resource_id: second.answer.ticketId });
    const replay = await sellOne(env.DB, email, key, new Date(LATER.getTime() + 1_000));
    expect(replay).toEqual({ answer: second.answer, replayed: true });
  });
});
