// The outbox's hand-off to the Queue after an event change (src/webhooks/outbox.ts).
import { describe, expect, it } from "vitest";
import { publishDeliveries } from "../../src/webhooks/outbox";

/** A Queue that records what it is sent, and an execution context that keeps what it is handed. */
function recording() {
  const sent: unknown[] = [];
  const handedOver: Promise<unknown>[] = [];
  const queue = { sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((m) => m.body)) };
  const context = {
    env: { WEBHOOK_QUEUE: queue as unknown as Queue },
    executionCtx: { waitUntil: (promise: Promise<unknown>) => void handedOver.push(promise) },
  };
  return { sent, handedOver, context };
}

describe("publishDeliveries", () => {
  it("starts the Queue send only after the handler has returned, inside waitUntil", async () => {
    const { sent, handedOver, context } = recording();
    publishDeliveries(context, ["d1", "d2"]);
    // Still in the handler's turn (its microtasks included): nothing sent yet.
    await Promise.resolve();
    expect(sent).toEqual([]);
    expect(handedOver).toHaveLength(1);
    await Promise.all(handedOver);
    expect(sent).toEqual([{ deliveryId: "d1" }, { deliveryId: "d2" }]);
  });

  it("hands nothing over when the change recorded no delivery", () => {
    const { handedOver, context } = recording();
    publishDeliveries(context, []);
    expect(handedOver).toEqual([]);
  });
});
