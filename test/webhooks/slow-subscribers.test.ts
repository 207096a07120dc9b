// A subscriber that does not answer costs only its own delivery: the Queue
// consumer does not wait for it (its attempt finishes in waitUntil and records
// itself), other deliveries of its batch are acked at once, and deliveries of
// later changes are not queued behind it. The subscribers are vitest.config.ts's
// outbound service; a "held" one answers only when a test releases it.
import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { createEvent } from "../support/helpers";
import {
  blackHoleQueue,
  createEventWithQueue,
  deliveryRows,
  eventually,
  heldSubscriberUrl,
  receivedAtLeastOne,
  receivedBy,
  releaseHeld,
  subscribe,
  subscriberUrl,
  unsubscribeAll,
  verifyDelivery,
} from "./helpers";

// A never-answered attempt ends at the consumer's 10 s timeout.
vi.setConfig({ testTimeout: 90_000 });
afterEach(unsubscribeAll);

/** A batch of one message per delivery (ids m1, m2...), with what the consumer decided for each. */
function batchOf(deliveryIds: string[]) {
  const batch = createMessageBatch(
    "museum-webhooks",
    deliveryIds.map((deliveryId, i) => ({ id: `m${i + 1}`, timestamp: new Date(), attempts: 1, body: { deliveryId } })),
  );
  const decided = new Map<string, { ack: true } | { retryAfter: number | undefined }>();
  for (const message of batch.messages) {
    const ack = message.ack.bind(message);
    const retry = message.retry.bind(message);
    message.ack = () => (decided.set(message.id, { ack: true }), ack());
    message.retry = (options) => (decided.set(message.id, { retryAfter: options?.delaySeconds }), retry(options));
  }
  return { batch: batch as MessageBatch<{ deliveryId: string }>, decided };
}

/** One event created with the Queue bypassed: its delivery ids, by subscriber URL. */
async function deliveriesOfNewEvent(urls: string[]): Promise<Map<string, string>> {
  const hooks = await Promise.all(urls.map((url) => subscribe(url)));
  const event = await createEventWithQueue(blackHoleQueue().queue);
  const rows = await deliveryRows("event_id = ?1", event.eventId);
  return new Map(hooks.map((hook) => [hook.url, rows.find((r) => r.webhook_id === hook.webhookId)!.delivery_id]));
}

describe("a subscriber that does not answer", () => {
  it("is not waited for: the batch decides the others, and its attempt is recorded in the background when it answers", async () => {
    const slow = heldSubscriberUrl();
    const healthy = subscriberUrl(202);
    const failing = subscriberUrl(500);
    const ids = await deliveriesOfNewEvent([slow, healthy, failing]);
    const { batch, decided } = batchOf([ids.get(slow)!, ids.get(healthy)!, ids.get(failing)!]);
    const ctx = createExecutionContext();

    await worker.queue(batch, env, ctx);
    // The handler returned while the slow subscriber still held the request;
    // each other message got its own attempt's decision (the backoff is 0 s here).
    expect(await receivedBy(slow)).toHaveLength(1);
    expect(decided.get("m2")).toEqual({ ack: true });
    expect(decided.get("m3")).toEqual({ retryAfter: 0 });
    expect((await deliveryRows("delivery_id = ?1", ids.get(healthy)))[0]).toMatchObject({ status: "delivered", attempts: 1 });
    expect((await deliveryRows("delivery_id = ?1", ids.get(failing)))[0]).toMatchObject({ status: "retrying", attempts: 1, response_status: 500 });
    expect((await deliveryRows("delivery_id = ?1", ids.get(slow)))[0]).toMatchObject({ status: "pending", attempts: 0 });
    // Its message comes back once the attempt has certainly ended (10 s) and its backoff (0 s here) has passed.
    expect(decided.get("m1")).toEqual({ retryAfter: 10 });

    expect(await releaseHeld(slow, 202)).toBe(1);
    await waitOnExecutionContext(ctx);
    expect((await deliveryRows("delivery_id = ?1", ids.get(slow)))[0]).toMatchObject({
      status: "delivered",
      attempts: 1,
      response_status: 202,
    });

    // The message that comes back finds the delivery ended: acked, nothing sent again.
    const again = batchOf([ids.get(slow)!]);
    await worker.queue(again.batch, env, createExecutionContext());
    expect(again.decided.get("m1")).toEqual({ ack: true });
    expect(await receivedBy(slow)).toHaveLength(1);
  });

  it("that never answers: its attempt ends at the 10 s timeout, recorded as a network failure to retry", async () => {
    const silent = heldSubscriberUrl();
    const ids = await deliveriesOfNewEvent([silent]);
    const { batch, decided } = batchOf([ids.get(silent)!]);
    const ctx = createExecutionContext();

    await worker.queue(batch, env, ctx);
    expect(decided.get("m1")).toEqual({ retryAfter: 10 });
    expect((await deliveryRows("delivery_id = ?1", ids.get(silent)))[0]).toMatchObject({ attempts: 0 });

    await waitOnExecutionContext(ctx);
    expect((await deliveryRows("delivery_id = ?1", ids.get(silent)))[0]).toMatchObject({
      status: "retrying",
      attempts: 1,
      response_status: null,
    });
    // Due again: the message that comes back sends the second attempt, with the same webhook-id.
    const again = batchOf([ids.get(silent)!]);
    const againCtx = createExecutionContext();
    await worker.queue(again.batch, env, againCtx);
    const received = await receivedBy(silent);
    expect(received).toHaveLength(2);
    expect(received[1]!.headers["webhook-id"]).toBe(ids.get(silent));
    // The first request, given up at the timeout, is still held too: released with it, its answer goes nowhere.
    await releaseHeld(silent, 500);
    await waitOnExecutionContext(againCtx);
    expect((await deliveryRows("delivery_id = ?1", ids.get(silent)))[0]).toMatchObject({
      status: "retrying",
      attempts: 2,
      response_status: 500,
    });
  });

  it("does not hold up the deliveries of later changes on the real Queue", async () => {
    const slow = heldSubscriberUrl();
    const healthy = subscriberUrl(202);
    const slowHook = await subscribe(slow);
    const healthyHook = await subscribe(healthy);

    const first = await createEvent();
    await receivedAtLeastOne(slow, "the first change's request to the slow subscriber");
    const second = await createEvent();
    const both = await eventually(async () => {
      const r = await receivedBy(healthy);
      return r.length === 2 ? r : undefined;
    }, "both changes at the healthy subscriber");
    expect(both.map((r) => verifyDelivery(healthyHook.secret, r))).toEqual(expect.arrayContaining([first, second]));
    // Meanwhile the slow subscriber has not answered the first change: its attempt is still open.
    const [slowFirst] = await deliveryRows("event_id = ?1 AND webhook_id = ?2", first.eventId, slowHook.webhookId);
    expect(slowFirst).toMatchObject({ status: "pending", attempts: 0 });

    // Released (each request it holds, as they come), both changes end delivered.
    await eventually(async () => {
      await releaseHeld(slow, 202);
      const rows = await deliveryRows("webhook_id = ?1", slowHook.webhookId);
      return rows.length === 2 && rows.every((r) => r.status === "delivered") ? rows : undefined;
    }, "both slow deliveries recorded as delivered");
  });
});
