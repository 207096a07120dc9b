// The served document carries webhooks.publishNewEvent as the Museum API
// 1.2.1 description has it: its facts (method, operationId, summary, tags,
// security, body fields with types and required list, status codes) equal the
// 1.2.1 entry of the project's reference fixture
// (test/contract/reference-operations.json), and every $ref it makes resolves.
import { describe, expect, it } from "vitest";
import { documentFacts } from "../../tools/lib/openapi-facts.mjs";
import fixture from "../contract/reference-operations.json";
import { api } from "../support/helpers";

type Json = Record<string, any>;

const REFERENCE_WEBHOOKS = fixture["1.2.1"].webhooks;

function resolve(doc: Json, ref: string): Json {
  return ref.slice(2).split("/").reduce<any>((node, part) => node?.[part], doc);
}

/** A schema with its $ref followed (the served document names some property schemas). */
function deref(doc: Json, schema: Json): Json {
  return schema.$ref ? deref(doc, resolve(doc, schema.$ref)) : schema;
}

async function servedDocument(): Promise<Json> {
  return (await (await api("/v1.1/openapi.json", { as: null })).json()) as Json;
}

describe("webhooks.publishNewEvent (Museum API 1.2.1)", () => {
  it("has the facts of the 1.2.1 description: method, operation, tags, security, body fields and types, responses", async () => {
    const [served] = documentFacts(await servedDocument()).webhooks;
    const [reference] = REFERENCE_WEBHOOKS;
    const servedBody = served.requestBody.content["application/json"];
    const referenceBody = reference!.requestBody.content["application/json"];
    // Every field 1.2.1 requires is required; the served event also always has its eventId.
    expect(servedBody.required).toEqual([...referenceBody.required, "eventId"].sort());
    // The additions, an event's optional capacity (docs/capacity.md) and its
    // prices per ticket category (docs/web-shop.md), are never required.
    const { capacity, categoryPrices, ...properties } = servedBody.properties;
    expect(capacity).toEqual({ type: "integer" });
    expect(categoryPrices).toEqual({ type: "object" });
    const asReference = { ...servedBody, properties, required: referenceBody.required };
    expect({ ...served, requestBody: { ...served.requestBody, content: { "application/json": asReference } } }).toEqual(reference);
  });

  it("sends the SpecialEvent schema, the same one GET /special-events/{eventId} returns", async () => {
    const served = await servedDocument();
    const media = served.webhooks.publishNewEvent.post.requestBody.content["application/json"];
    const get = served.paths["/special-events/{eventId}"].get.responses["200"].content["application/json"].schema;
    expect(deref(served, media.schema)).toEqual(deref(served, get));
  });

  it("has examples whose $refs resolve to events with every required field", async () => {
    const served = await servedDocument();
    const media = served.webhooks.publishNewEvent.post.requestBody.content["application/json"];
    const required: string[] = deref(served, media.schema).required;
    const examples = Object.values(media.examples as Json);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      expect(Object.keys(resolve(served, example.$ref).value)).toEqual(expect.arrayContaining(required));
    }
  });
  it("lists the subscription operations under the Webhooks tag", async () => {
    const served = await servedDocument();
    expect(Object.keys(served.paths).filter((p) => p.startsWith("/webhooks")).sort()).toEqual([
      "/webhooks",
      "/webhooks/{webhookId}",
      "/webhooks/{webhookId}/deliveries",
    ]);
    expect(served.tags.map((t: Json) => t.name)).toContain("Webhooks");
  });
});
