import type { OpenAPIHono, z } from "@hono/zod-openapi";
// One of the sample events scripts/seed.mjs loads.
import exampleEvent from "./example-event.json";

/**
 * `webhooks.publishNewEvent` of the Museum API 1.2.1 description, as it has
 * it: `eventSchema` (the event as GET returns it, handed over by app.ts so
 * that this feature does not import events) under 1.2.1's component name
 * SpecialEvent, and its GetSpecialEventResponseExample, answered 202.
 */
export function registerPublishNewEventWebhook(
  api: Pick<OpenAPIHono, "openAPIRegistry">,
  eventSchema: z.ZodObject,
): void {
  api.openAPIRegistry.registerComponent("examples", "GetSpecialEventResponseExample", {
    summary: "Get special event",
    value: exampleEvent,
  });
  api.openAPIRegistry.registerWebhook({
    method: "post",
    path: "publishNewEvent",
    summary: "New special event added",
    description: "Publish details of a new or updated event.",
    operationId: "publishNewEvent",
    tags: ["Events"],
    request: {
      body: {
        content: {
          "application/json": {
            schema: eventSchema.openapi("SpecialEvent"),
            examples: { default_example: { $ref: "#/components/examples/GetSpecialEventResponseExample" } },
          },
        },
      },
    },
    responses: { 202: { description: "Data accepted." } },
  });
}
