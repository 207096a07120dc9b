import type { OpenAPIHono, z } from "@hono/zod-openapi";

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
    value: {
      eventId: "6744a0da-4121-49cd-8479-f8cc20526495",
      name: "Time Traveler Tea Party",
      location: "Temporal Tearoom",
      eventDescription: "Sip tea with important historical figures.",
      dates: ["2023-11-18", "2023-11-25", "2023-12-02"],
      price: 60,
    },
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
