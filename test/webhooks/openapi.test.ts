// The served document carries webhooks.publishNewEvent as the Museum API
// 1.2.1 description has it: compared with the project's own fixture of that
// description's facts (test/contract/publish-new-event.json), with every $ref
// it makes resolvable in the served document.
import { describe, expect, it } from "vitest";
import reference from "../contract/publish-new-event.json";
import { api } from "../helpers";

type Json = Record<string, any>;

function resolve(doc: Json, ref: string): Json {
  return ref.slice(2).split("/").reduce<any>((node, part) => node?.[part], doc);
}

/** A schema with its $ref followed (the served document names some property schemas). */
function deref(doc: Json, schema: Json): Json {
  return schema.$ref ? deref(doc, resolve(doc, schema.$ref)) : schema;
}

/** The facts the fixture records of a schema: type, format, and the same of its items. */
function facts(doc: Json, schema: Json): Json {
  const s = deref(doc, schema);
  return {
    type: s.type,
    ...(s.format ? { format: s.format } : {}),
    ...(s.items ? { items: facts(doc, s.items) } : {}),
  };
}

async function servedDocument(): Promise<Json> {
  return (await (await api("/v1.1/openapi.json", { as: null })).json()) as Json;
}

describe("webhooks.publishNewEvent (Museum API 1.2.1)", () => {
  it("is the only webhook, with the reference's method, operation, tags and responses", async () => {
    const served = await servedDocument();
    expect(Object.keys(served.webhooks)).toEqual([reference.webhook]);
    expect(Object.keys(served.webhooks[reference.webhook])).toEqual([reference.method]);
    const operation = served.webhooks[reference.webhook][reference.method];
    expect(operation).toMatchObject({ operationId: reference.operationId, summary: reference.summary, tags: reference.tags });
    expect(Object.keys(operation.responses)).toEqual(reference.responses);
    expect(Object.keys(operation.requestBody.content)).toEqual([reference.requestBody.mediaType]);
  });

  it("its body is the SpecialEvent schema (the event as GET returns it): field names, types and required as 1.2.1", async () => {
    const served = await servedDocument();
    const media = served.webhooks[reference.webhook][reference.method].requestBody.content[reference.requestBody.mediaType];
    expect(media.schema).toEqual({ $ref: reference.requestBody.schemaRef });
    const schema = resolve(served, media.schema.$ref);
    expect(schema.type).toBe("object");
    expect(
      Object.fromEntries(Object.entries(schema.properties as Json).map(([name, property]) => [name, facts(served, property)])),
    ).toEqual(reference.requestBody.properties);
    // Every field 1.2.1 requires is required (the served event also always has its eventId).
    expect(schema.required).toEqual(expect.arrayContaining(reference.requestBody.required));
    // The GET response's schema is the same one (the webhook sends what GET returns).
    const get = served.paths["/special-events/{eventId}"].get.responses["200"].content["application/json"].schema;
    expect(deref(served, get)).toEqual(schema);
  });

  it("its example $ref resolves to an event that fits the schema's required fields", async () => {
    const served = await servedDocument();
    const media = served.webhooks[reference.webhook][reference.method].requestBody.content[reference.requestBody.mediaType];
    expect(Object.fromEntries(Object.entries(media.examples as Json).map(([name, example]) => [name, example.$ref]))).toEqual(
      reference.requestBody.exampleRefs,
    );
    const example = resolve(served, reference.requestBody.exampleRefs.default_example);
    expect(Object.keys(example.value)).toEqual(expect.arrayContaining(reference.requestBody.required));
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
