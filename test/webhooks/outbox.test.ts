// The outbox's hand-off to the Queue after an event change (src/webhooks/outbox.ts).
import { describe, expect, it } from "vitest";
import { publishDeliveries } from "../../src/webhooks/outbox";
import { blackHoleQueue } from "./helpers";

/** The handler context `publishDeliveries` needs, with a recording Queue; `handedOver` has what went to waitUntil. */
function recording() {
  const { sent, queue } = blackHoleQueue();
  const handedOver: Promise<unknown>[] = [];
  const context = {
    env: { WEBHOOK_QUEUE: queue },
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
