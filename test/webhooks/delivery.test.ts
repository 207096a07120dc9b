// publishNewEvent deliveries end to end inside workerd: the event write and
// its outbox rows in one D1 batch, the real local Queue, this Worker's queue()
// consumer, and subscribers served by vitest.config.ts's outbound service.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { configurationOf } from "../../src/configuration";
import { type OutboxEnv, sweepUnsentDeliveries } from "../../src/webhooks/outbox";
import { clearD1Faults, injectD1Faults } from "../support/d1-faults";
import { api, createEvent, eventBody, type EventJson } from "../support/helpers";
import {
  blackHoleQueue,
  createEventWithQueue,
  deliveriesOnceStatus,
  deliveryRows,
  eventually,
  receivedAtLeastOne,
  receivedBy,
  subscribe,
  subscriberUrl,
  unsubscribeAll,
  verifyDelivery,
} from "./helpers";

// Deliveries pass through the local Queue (batches wait up to 1 s): a test
// waits for the outcome (never for a time), so it needs more than 5 s on a busy machine (the full suite runs files side by side).
vi.setConfig({ testTimeout: 90_000 });
afterEach(unsubscribeAll);

/** The Cron Trigger's sweep, as the Worker runs it with the configuration of `bindings`. */
const sweepUnsent = (bindings: OutboxEnv) => sweepUnsentDeliveries(bindings, configurationOf(bindings).settings);

describe("deliveries", () => {
  it("a created event reaches every subscription once, signed, with the body GET returns", async () => {
    const urls = [subscriberUrl(202), subscriberUrl(200)];
    const hooks = await Promise.all(urls.map((url) => subscribe(url)));
    const event = await createEvent();
    const rows = await deliveryRows("event_id = ?1", event.eventId);
    expect(rows.map((r) => r.webhook_id).sort()).toEqual(hooks.map((h) => h.webhookId).sort());

    const got = await api(`/v1.1/special-events/${event.eventId}`);
    const getBody = await got.text();
    for (const [i, url] of urls.entries()) {
      const [received] = await receivedAtLeastOne(url, `delivery to ${url}`);
      expect(received!.body).toBe(getBody);
      expect(verifyDelivery(hooks[i]!.secret, received!)).toEqual(JSON.parse(getBody));
      expect(received!.headers["content-type"]).toBe("application/json");
      expect(rows.map((r) => r.delivery_id)).toContain(received!.headers["webhook-id"]);
      // Another subscription's secret does not verify it.
      expect(() => verifyDelivery(hooks[1 - i]!.secret, received!)).toThrow();
    }
    await eventually(async () => {
      const now = await deliveryRows("event_id = ?1", event.eventId);
      return now.every((r) => r.status === "delivered" && r.attempts === 1) ? now : undefined;
    }, "both deliveries recorded as delivered");
  });

  it("an update sends a new delivery carrying the updated event", async () => {
    const url = subscriberUrl(202);
    const hook = await subscribe(url);
    const event = await createEvent();
    const res = await api(`/v1.1/special-events/${event.eventId}`, { method: "PATCH", json: { location: "Roof Garden" } });
    const updated = (await res.json()) as EventJson;
    const received = await eventually(async () => {
      const r = await receivedBy(url);
      return r.length === 2 ? r : undefined;
    }, "two deliveries");
    const bodies = received.map((r) => verifyDelivery(hook.secret, r) as EventJson);
    expect(bodies).toContainEqual(event);
    expect(bodies).toContainEqual(updated);
    expect(updated.location).toBe("Roof Garden");
    expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(2);
  });

  it("a 500 is retried: two attempts with the same webhook-id, then delivered", async () => {
    const url = subscriberUrl(500, 202);
    const hook = await subscribe(url);
    const event = await createEvent();
    const received = await eventually(async () => {
      const r = await receivedBy(url);
      return r.length === 2 ? r : undefined;
    }, "the retry");
    expect(received[0]!.headers["webhook-id"]).toBe(received[1]!.headers["webhook-id"]);
    for (const r of received) verifyDelivery(hook.secret, r);
    const [row] = await deliveriesOnceStatus(event.eventId, "delivered");
    expect(row).toMatchObject({ attempts: 2, response_status: 202, delivery_id: received[0]!.headers["webhook-id"] });

    const list = await (await api(`/v1.1/webhooks/${hook.webhookId}/deliveries`)).json();
    expect(list).toEqual([
      { deliveryId: row!.delivery_id, eventId: event.eventId, attempts: 2, status: "delivered", responseStatus: 202, lastAttemptAt: expect.any(String) },
    ]);
  });

  it("a subscriber that never succeeds gets the configured number of attempts, then the delivery is failed", async () => {
    const url = subscriberUrl(503);
    await subscribe(url);
    const event = await createEvent();
    const [row] = await deliveriesOnceStatus(event.eventId, "failed");
    expect(row).toMatchObject({ attempts: 3, response_status: 503 });
    expect(await receivedBy(url)).toHaveLength(3);
  });

  it("a redirect is not followed and counts as a failed attempt", async () => {
    const url = subscriberUrl(302, 204);
    await subscribe(url);
    const event = await createEvent();
    const [row] = await deliveriesOnceStatus(event.eventId, "delivered");
    expect(row).toMatchObject({ attempts: 2, response_status: 204 });
    // The redirect's target (elsewhere.test) was never asked: only the subscriber's two answers.
    expect(await receivedBy(url)).toHaveLength(2);
  });

  it("one failing subscriber does not hold up another", async () => {
    const failing = subscriberUrl(500);
    const healthy = subscriberUrl(202);
    await subscribe(failing);
    await subscribe(healthy);
    const event = await createEvent();
    await eventually(async () => {
      const rows = await deliveryRows("event_id = ?1 AND status = 'delivered'", event.eventId);
      return rows.length === 1 ? rows : undefined;
    }, "the healthy delivery");
    expect(await receivedBy(healthy)).toHaveLength(1);
  });

  it("a message still queued for a deleted subscription is acked without a request", async () => {
    const url = subscriberUrl(500);
    const hook = await subscribe(url);
    const event = await createEvent();
    const [row] = await deliveriesOnceStatus(event.eventId, "failed", "the attempts to end");
    await api(`/v1.1/webhooks/${hook.webhookId}`, { method: "DELETE" });
    // As if the retry's message were still in the queue, its row not yet ended.
    await env.DB.prepare("UPDATE webhook_deliveries SET status = 'retrying', attempts = 1 WHERE delivery_id = ?1").bind(row!.delivery_id).run();
    const before = (await receivedBy(url)).length;
    const batch = createMessageBatch("museum-webhooks", [
      { id: "m1", timestamp: new Date(), attempts: 2, body: { deliveryId: row!.delivery_id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<{ deliveryId: string }>, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await receivedBy(url)).toHaveLength(before);
    expect((await deliveryRows("delivery_id = ?1", row!.delivery_id))[0]).toMatchObject({ attempts: 1 });
  });

  it("a deleted subscription gets nothing of later changes (no delivery row, no request)", async () => {
    const url = subscriberUrl(500);
    const hook = await subscribe(url);
    const kept = subscriberUrl(202);
    await subscribe(kept);
    await api(`/v1.1/webhooks/${hook.webhookId}`, { method: "DELETE" });
    const event = await createEvent();
    await eventually(async () => ((await receivedBy(kept)).length === 1 ? true : undefined), "the other subscriber");
    expect(await deliveryRows("event_id = ?1 AND webhook_id = ?2", event.eventId, hook.webhookId)).toEqual([]);
    expect(await receivedBy(url)).toEqual([]);
  });
});

const failingQueue = {
  send: () => Promise.reject(new Error("queue unavailable")),
  sendBatch: () => Promise.reject(new Error("queue unavailable")),
} as unknown as Queue;

/** Moves a delivery's `column` timestamp `seconds` into the past. */
async function age(deliveryId: string, column: "created_at" | "resent_at", seconds: number): Promise<void> {
  await env.DB.prepare(
    `UPDATE webhook_deliveries SET ${column} = strftime('%Y-%m-%dT%H:%M:%fZ', ${column}, '-' || ?2 || ' seconds') WHERE delivery_id = ?1`,
  )
    .bind(deliveryId, seconds)
    .run();
}

describe("nothing is lost", () => {
  it("the sweep delivers what the Queue never got (the D1 answer lost after the commit)", async () => {
    const url = subscriberUrl(202);
    const hook = await subscribe(url);
    const body = eventBody();
    injectD1Faults({ on: "batch", sql: "INSERT INTO special_events", effect: "lost-response" });
    const res = await api("/v1.1/special-events", { method: "POST", json: body });
    expect(clearD1Faults()).toBe(1);
    expect(res.status).toBeGreaterThanOrEqual(500);
    // The event and its delivery were committed; the Worker never knew, so nothing was sent.
    const [row] = await deliveryRows("webhook_id = ?1", hook.webhookId);
    expect(row).toMatchObject({ status: "pending", attempts: 0, resent_at: null });
    expect(await receivedBy(url)).toEqual([]);

    expect(await sweepUnsent(env)).toBe(1);
    const [received] = await receivedAtLeastOne(url, "the swept delivery");
    expect(received!.headers["webhook-id"]).toBe(row!.delivery_id);
    expect(verifyDelivery(hook.secret, received!)).toMatchObject({ name: body.name });
  });

  it("the sweep delivers what a failed Queue send left behind; the response was not held up by it", async () => {
    const url = subscriberUrl(202);
    const hook = await subscribe(url);
    const event = await createEventWithQueue(failingQueue);
    const [row] = await deliveryRows("event_id = ?1", event.eventId);
    expect(row).toMatchObject({ webhook_id: hook.webhookId, status: "pending", resent_at: null });

    expect(await sweepUnsent(env)).toBe(1);
    const [received] = await receivedAtLeastOne(url, "the swept delivery");
    expect(verifyDelivery(hook.secret, received!)).toEqual(event);
    // Delivered: a second sweep finds nothing to send, even with no grace period.
    await deliveriesOnceStatus(event.eventId, "delivered");
    expect(await sweepUnsent(env)).toBe(0);
  });

  it("a message the Queue accepted but never ran is re-sent once the grace period has passed, once per grace period", async () => {
    const url = subscriberUrl(202);
    const hook = await subscribe(url);
    const lost = blackHoleQueue();
    const event = await createEventWithQueue(lost.queue);
    const [row] = await deliveryRows("event_id = ?1", event.eventId);
    // The request handed it over and wrote nothing back.
    expect(lost.sent).toEqual([{ deliveryId: row!.delivery_id }]);
    expect(row).toMatchObject({ webhook_id: hook.webhookId, status: "pending", attempts: 0, resent_at: null });

    const sweep = blackHoleQueue();
    const sweepEnv = { ...env, WEBHOOK_SWEEP_GRACE_SECONDS: "300", WEBHOOK_QUEUE: sweep.queue };
    // Within the grace period the Queue is trusted: nothing is re-sent.
    expect(await sweepUnsent(sweepEnv)).toBe(0);
    await age(row!.delivery_id, "created_at", 240);
    expect(await sweepUnsent(sweepEnv)).toBe(0);

    await age(row!.delivery_id, "created_at", 70);
    expect(await sweepUnsent(sweepEnv)).toBe(1);
    expect(sweep.sent).toEqual([{ deliveryId: row!.delivery_id }]);
    const [resent] = await deliveryRows("delivery_id = ?1", row!.delivery_id);
    expect(resent!.resent_at).not.toBeNull();
    // Re-sent, so trusted again for a grace period: the next sweeps leave it alone.
    expect(await sweepUnsent(sweepEnv)).toBe(0);
    await age(row!.delivery_id, "resent_at", 240);
    expect(await sweepUnsent(sweepEnv)).toBe(0);
    await age(row!.delivery_id, "resent_at", 70);
    expect(await sweepUnsent(sweepEnv)).toBe(1);
    expect(sweep.sent).toHaveLength(2);

    // Through the real Queue at last: delivered once, with the delivery's id.
    expect(await sweepUnsent(env)).toBe(1);
    const [received] = await receivedAtLeastOne(url, "the swept delivery");
    expect(received!.headers["webhook-id"]).toBe(row!.delivery_id);
    expect(verifyDelivery(hook.secret, received!)).toEqual(event);
    await deliveriesOnceStatus(event.eventId, "delivered");
    expect(await receivedBy(url)).toHaveLength(1);
  });

  it("a delivery sent twice (the sweep re-sent it while the Queue still held it) is attempted and recorded once", async () => {
    const url = subscriberUrl(202);
    const hook = await subscribe(url);
    const held = blackHoleQueue();
    const event = await createEventWithQueue(held.queue);
    const [row] = await deliveryRows("event_id = ?1", event.eventId);
    const message = (id: string) => ({ id, timestamp: new Date(), attempts: 1, body: { deliveryId: row!.delivery_id } });
    // Both messages reach consumers at the same time.
    const batches = [createMessageBatch("museum-webhooks", [message("m1")]), createMessageBatch("museum-webhooks", [message("m2")])];
    const contexts = batches.map(() => createExecutionContext());
    await Promise.all(batches.map((batch, i) => worker.queue(batch as MessageBatch<{ deliveryId: string }>, env, contexts[i]!)));
    for (const [i, batch] of batches.entries()) {
      const result = await getQueueResult(batch, contexts[i]!);
      expect(result.explicitAcks).toEqual([`m${i + 1}`]);
      expect(result.retryMessages).toEqual([]);
    }
    const [after] = await deliveryRows("delivery_id = ?1", row!.delivery_id);
    expect(after).toMatchObject({ status: "delivered", attempts: 1, response_status: 202 });
    // The subscriber may see it twice, always with the same webhook-id, and dedupes by it.
    const received = await receivedBy(url);
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(new Set(received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([row!.delivery_id]));
    for (const r of received) expect(verifyDelivery(hook.secret, r)).toEqual(event);
  });
});
