// The served document carries webhooks.publishNewEvent exactly as the 1.2.1
// description has it (read by vitest.config.ts as REFERENCE_OPENAPI_1_2_1),
// with every $ref it makes resolvable in the served document.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../helpers";

type Json = Record<string, any>;
const bindings = env as unknown as { REFERENCE_OPENAPI_1_2_1?: string; TEST_CI?: string };
const reference: Json | null = bindings.REFERENCE_OPENAPI_1_2_1 ? JSON.parse(bindings.REFERENCE_OPENAPI_1_2_1) : null;
const IN_CI = ["true", "1"].includes((bindings.TEST_CI ?? "").toLowerCase());

function resolve(doc: Json, ref: string): unknown {
  return ref.slice(2).split("/").reduce<any>((node, part) => node?.[part], doc);
}

describe.skipIf(!reference && !IN_CI)("webhooks.publishNewEvent (Museum API 1.2.1)", () => {
  it("is the reference's, word for word", async () => {
    expect(reference, "../shared/reference/museum-openapi-1.2.1.yaml is required under CI").not.toBeNull();
    const served = (await (await api("/v1.1/openapi.json", { as: null })).json()) as Json;
    expect(served.webhooks).toEqual(reference!.webhooks);
  });

  it("its $refs resolve: the SpecialEvent schema (the event as GET returns it) and the example", async () => {
    const served = (await (await api("/v1.1/openapi.json", { as: null })).json()) as Json;
    const media = served.webhooks.publishNewEvent.post.requestBody.content["application/json"];
    const schema = resolve(served, media.schema.$ref) as Json;
    expect(Object.keys(schema.properties).sort()).toEqual(["dates", "eventDescription", "eventId", "location", "name", "price"]);
    expect(schema.required).toEqual(expect.arrayContaining(reference!.components.schemas.SpecialEvent.required));
    expect(resolve(served, media.examples.default_example.$ref)).toEqual(
      reference!.components.examples.GetSpecialEventResponseExample,
    );
  });

  it("lists the subscription operations under the Webhooks tag", async () => {
    const served = (await (await api("/v1.1/openapi.json", { as: null })).json()) as Json;
    expect(Object.keys(served.paths).filter((p) => p.startsWith("/webhooks")).sort()).toEqual([
      "/webhooks",
      "/webhooks/{webhookId}",
      "/webhooks/{webhookId}/deliveries",
    ]);
    expect(served.tags.map((t: Json) => t.name)).toContain("Webhooks");
  });
});
