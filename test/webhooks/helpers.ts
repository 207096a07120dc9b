import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { expect } from "vitest";
import worker from "../../src/index";
import { api, authHeader, eventBody, type EventJson } from "../support/helpers";

export type Received = { headers: Record<string, string>; body: string };

/**
 * A subscriber URL served by vitest.config.ts's outbound service: its nth
 * request is answered with the nth of `statuses` (the last one repeats).
 */
export function subscriberUrl(...statuses: number[]): string {
  return `https://hooks.example/answer/${statuses.join("-")}/${crypto.randomUUID()}`;
}

/**
 * A subscriber URL that records each request and answers none until
 * `releaseHeld` (vitest.config.ts); one never released accepted the request
 * and never answers.
 */
export function heldSubscriberUrl(): string {
  return `https://hooks.example/hold/${crypto.randomUUID()}`;
}

/** Answers every request held for `url` with `status`; returns how many it answered. */
export async function releaseHeld(url: string, status: number): Promise<number> {
  const { host, pathname } = new URL(url);
  const res = await fetch(`https://subscriber-log.test/release?path=${encodeURIComponent(host + pathname)}&status=${status}`);
  return ((await res.json()) as { released: number }).released;
}

/** What a subscriber URL has received so far, in order. */
export async function receivedBy(url: string): Promise<Received[]> {
  const { host, pathname } = new URL(url);
  const res = await fetch(`https://subscriber-log.test/received?path=${encodeURIComponent(host + pathname)}`);
  return (await res.json()) as Received[];
}

/** Waits until `url` has received at least one delivery; returns what it has (`what` names the wait). */
export function receivedAtLeastOne(url: string, what: string): Promise<Received[]> {
  return eventually(async () => {
    const r = await receivedBy(url);
    return r.length > 0 ? r : undefined;
  }, what);
}

/** A Queue that accepts messages and never delivers them (as if it had lost them); `sent` has their bodies. */
export function blackHoleQueue(): { sent: unknown[]; queue: Queue } {
  const sent: unknown[] = [];
  const queue = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((m) => m.body)),
  };
  return { sent, queue: queue as unknown as Queue };
}

/** POST /special-events through the Worker with `queue` as its webhook Queue; waits for its waitUntil work. */
export async function createEventWithQueue(queue: Queue): Promise<EventJson> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("https://museum.test/v1.1/special-events", {
      method: "POST",
      headers: { Authorization: authHeader(), "Content-Type": "application/json", "CF-Connecting-IP": "198.18.9.9" },
      body: JSON.stringify(eventBody()),
    }),
    { ...env, WEBHOOK_QUEUE: queue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(201);
  return (await res.json()) as EventJson;
}

export type CreatedWebhook = { webhookId: string; url: string; description?: string; createdAt: string; secret: string };

export async function subscribe(url: string, description?: string): Promise<CreatedWebhook> {
  const res = await api("/v1.1/webhooks", { method: "POST", json: { url, ...(description ? { description } : {}) } });
  if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as CreatedWebhook;
}

/** Ends every live subscription (storage is per test file; tests of a file share it). */
export async function unsubscribeAll(): Promise<void> {
  const list = (await (await api("/v1.1/webhooks")).json()) as { webhookId: string }[];
  for (const { webhookId } of list) await api(`/v1.1/webhooks/${webhookId}`, { method: "DELETE" });
}

export type DeliveryDbRow = {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  payload: string;
  status: string;
  attempts: number;
  response_status: number | null;
  created_at: string;
  resent_at: string | null;
};

export async function deliveryRows(where: string, ...params: unknown[]): Promise<DeliveryDbRow[]> {
  const { results } = await env.DB.prepare(`SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY rowid`)
    .bind(...params)
    .all<DeliveryDbRow>();
  return results;
}

/** The deliveries of `eventId` once the first has reached `status` (polled; `what` names the wait). */
export function deliveriesOnceStatus(eventId: string, status: string, what = `status ${status}`): Promise<DeliveryDbRow[]> {
  return eventually(async () => {
    const rows = await deliveryRows("event_id = ?1", eventId);
    return rows[0]?.status === status ? rows : undefined;
  }, what);
}

/** Polls until `check` returns a value (not undefined); fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Verifies a received delivery with the off-the-shelf Standard Webhooks verifier; returns the payload. */
export function verifyDelivery(secret: string, received: Received): unknown {
  return new StandardWebhook(secret).verify(received.body, received.headers);
}
