// The served OpenAPI document against the facts of the reference description
// (Redocly's Museum API 1.1.1), recorded in reference-operations.json by
// `npm run test:reference -- --write` (which also checks, where the reference
// files are at hand, that the fixture still matches them). Both sides are
// reduced to the same facts (tools/lib/openapi-facts.mjs): every reference
// path, method, operationId, summary, tag, parameter, request and response
// property, status code and security requirement must be in the served
// document with a compatible type; any drift fails.
//
// The operations are compared with 1.1.1, the interface version served; the
// 1.2.1 entry's `publishNewEvent` webhook is compared in
// test/webhooks/openapi.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { documentFacts, typeList, type Json } from "../../tools/lib/openapi-facts.mjs";
import { api } from "../support/helpers";
import fixture from "./reference-operations.json";

const REFERENCE: Json = fixture["1.1.1"];
const BASE_PATH = "/v1.1";

const keyOf = (op: Json) => `${op.method} ${op.path}`;
const labelOf = (op: Json) => `${op.method.toUpperCase()} ${op.path}`;

function admitsType(types: string[] | undefined, type: string): boolean {
  if (types === undefined) return true;
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

function compareTypes(ref: Json, own: Json, where: string, direction: "request" | "response", problems: string[]): void {
  const refTypes = typeList(ref);
  const ownTypes = typeList(own);
  if (!refTypes) return;
  if (direction === "request") {
    for (const type of refTypes) {
      if (!admitsType(ownTypes, type)) problems.push(`${where}: type ${refTypes} in the reference, ${ownTypes ?? "any"} served (refuses ${type})`);
    }
  } else if (ownTypes === undefined) {
    problems.push(`${where}: type ${refTypes} in the reference, any type served`);
  } else {
    for (const type of ownTypes) {
      if (!admitsType(refTypes, type)) problems.push(`${where}: type ${refTypes} in the reference, ${ownTypes} served (may send ${type})`);
    }
  }
}

function compareEnums(ref: Json, own: Json, where: string, direction: "request" | "response", problems: string[]): void {
  if (!Array.isArray(ref.enum)) return;
  if (direction === "request" && Array.isArray(own.enum)) {
    const refused = ref.enum.filter((v: unknown) => !own.enum.includes(v));
    if (refused.length > 0) problems.push(`${where}: enum value(s) ${refused.join(", ")} of the reference are refused`);
  }
  if (direction === "response") {
    if (!Array.isArray(own.enum)) problems.push(`${where}: the reference allows only ${ref.enum.join(", ")}, the served schema has no enum`);
    else {
      const extra = own.enum.filter((v: unknown) => !ref.enum.includes(v));
      if (extra.length > 0) problems.push(`${where}: may send ${extra.join(", ")}, not in the reference's enum`);
    }
  }
}

function compareProperties(ref: Json, own: Json, where: string, direction: "request" | "response", problems: string[]): void {
  if (ref.properties === undefined) return;
  const ownProperties: Json = own.properties ?? {};
  const refRequired: string[] = ref.required ?? [];
  const ownRequired: string[] = own.required ?? [];
  for (const [name, schema] of Object.entries(ref.properties as Json)) {
    const at = `${where}.${name}`;
    if (!(name in ownProperties)) {
      problems.push(`${at}: property missing from the served schema`);
      continue;
    }
    compareSchemas(schema, ownProperties[name], at, direction, problems);
    if (direction === "response" && refRequired.includes(name) && !ownRequired.includes(name)) {
      problems.push(`${at}: required in the reference, optional in the served response`);
    }
    if (direction === "request" && ownRequired.includes(name) && !refRequired.includes(name)) {
      problems.push(`${at}: optional in the reference, required by the served request schema`);
    }
  }
  if (direction === "request") {
    for (const name of ownRequired) {
      if (!(name in ref.properties)) problems.push(`${where}.${name}: required by the served request schema, not in the reference`);
    }
  }
}

/**
 * Compatibility of our schema facts with the reference's at `where`.
 * - "request": ours must accept every value the reference describes (types,
 *   enum values, properties; nothing required that the reference leaves optional).
 * - "response": ours must only produce what the reference describes (types,
 *   enum values) and always produce what it requires.
 * Property names, formats and array items are compared in both directions.
 */
function compareSchemas(ref: Json, own: Json | undefined, where: string, direction: "request" | "response", problems: string[]): void {
  if (own === undefined) {
    problems.push(`${where}: no schema in the served document`);
    return;
  }
  compareTypes(ref, own, where, direction, problems);
  if (ref.format !== undefined && own.format !== ref.format) {
    problems.push(`${where}: format ${ref.format} in the reference, ${own.format ?? "none"} served`);
  }
  compareEnums(ref, own, where, direction, problems);
  if (ref.items !== undefined) compareSchemas(ref.items, own.items, `${where}[]`, direction, problems);
  compareProperties(ref, own, where, direction, problems);
}

function compareParameters(ref: Json, own: Json, label: string, problems: string[]): void {
  const ownParams = new Map<string, Json>(own.parameters.map((p: Json) => [`${p.in}:${p.name}`, p]));
  const refKeys = new Set<string>(ref.parameters.map((p: Json) => `${p.in}:${p.name}`));
  for (const param of ref.parameters as Json[]) {
    const mine = ownParams.get(`${param.in}:${param.name}`);
    if (!mine) {
      problems.push(`${label}: parameter ${param.name} (in ${param.in}) missing`);
      continue;
    }
    if (param.required && !mine.required) problems.push(`${label}: parameter ${param.name} is required in the reference, optional served`);
    if (param.in === "path" && !mine.required) problems.push(`${label}: path parameter ${param.name} not required`);
    compareSchemas(param.schema, mine.schema, `${label} parameter ${param.name}`, "request", problems);
  }
  // Our own parameters must not make a reference-valid request invalid.
  for (const [key, param] of ownParams) {
    if (param.required && !refKeys.has(key)) problems.push(`${label}: required parameter ${param.name} (in ${param.in}) is not in the reference`);
  }
}

function compareRequestBodies(ref: Json, own: Json, label: string, problems: string[]): void {
  if (!ref.requestBody) {
    if (own.requestBody?.required) problems.push(`${label}: the served operation requires a body, the reference has none`);
    return;
  }
  if (!own.requestBody) {
    problems.push(`${label}: request body missing`);
    return;
  }
  if (ref.requestBody.required !== own.requestBody.required) {
    problems.push(`${label}: request body required=${ref.requestBody.required} in the reference, ${own.requestBody.required} served`);
  }
  for (const [mediaType, schema] of Object.entries(ref.requestBody.content as Json)) {
    const mine = own.requestBody.content[mediaType];
    if (!mine) problems.push(`${label}: request body media type ${mediaType} missing`);
    else compareSchemas(schema, mine, `${label} request body`, "request", problems);
  }
}

function compareResponses(ref: Json, own: Json, label: string, problems: string[]): void {
  for (const [status, refResponse] of Object.entries(ref.responses as Json)) {
    const ownResponse = own.responses[status];
    if (!ownResponse) {
      problems.push(`${label}: response ${status} missing`);
      continue;
    }
    const refTypes = Object.keys(refResponse.content);
    const ownTypes = Object.keys(ownResponse.content);
    if (refTypes.length === 0 && ownTypes.length > 0) problems.push(`${label}: response ${status} has no body in the reference, ${ownTypes} served`);
    for (const mediaType of refTypes) {
      const mine = ownResponse.content[mediaType];
      if (!mine) problems.push(`${label}: response ${status} media type ${mediaType} missing (served: ${ownTypes.join(", ") || "none"})`);
      else compareSchemas(refResponse.content[mediaType], mine, `${label} response ${status}`, "response", problems);
    }
  }
}

/** Everything about one reference operation that the served facts do not honour. */
function compareOperation(ref: Json, served: Json): string[] {
  const label = labelOf(ref);
  const own = (served.operations as Json[]).find((o) => keyOf(o) === keyOf(ref));
  if (!own) return [`${label}: operation missing from the served document`];
  const problems: string[] = [];
  if (own.operationId !== ref.operationId) problems.push(`${label}: operationId ${ref.operationId} in the reference, ${own.operationId} served`);
  if (own.summary !== ref.summary) problems.push(`${label}: summary "${ref.summary}" in the reference, "${own.summary}" served`);
  for (const tag of ref.tags) {
    if (!own.tags.includes(tag)) problems.push(`${label}: tag ${tag} missing`);
  }
  compareParameters(ref, own, label, problems);
  compareRequestBodies(ref, own, label, problems);
  compareResponses(ref, own, label, problems);
  for (const scheme of ref.security) {
    if (!own.security.includes(scheme)) problems.push(`${label}: security scheme ${scheme} not required`);
  }
  return problems;
}

const PROBLEM_FIELDS = ["type", "title", "status", "detail"];

/** Every 4xx response of every served operation is RFC 9457 problem+json. */
function checkProblemResponses(served: Json): string[] {
  const problems: string[] = [];
  for (const op of served.operations as Json[]) {
    const label = labelOf(op);
    const statuses = Object.keys(op.responses);
    if (!statuses.some((s) => s.startsWith("4"))) problems.push(`${label}: no 4xx response documented`);
    if (op.security.includes("MuseumPlaceholderAuth") && !statuses.includes("401")) problems.push(`${label}: needs credentials but documents no 401`);
    for (const status of statuses.filter((s) => s.startsWith("4"))) {
      const mediaTypes = Object.keys(op.responses[status].content);
      if (mediaTypes.length !== 1 || mediaTypes[0] !== "application/problem+json") {
        problems.push(`${label}: response ${status} is ${mediaTypes.join(", ") || "bodiless"}, not application/problem+json`);
        continue;
      }
      const schema = op.responses[status].content["application/problem+json"];
      for (const field of PROBLEM_FIELDS) {
        if (!schema.properties?.[field]) problems.push(`${label}: response ${status} problem schema lacks ${field}`);
        if (!(schema.required ?? []).includes(field)) problems.push(`${label}: response ${status} problem field ${field} not required`);
      }
    }
  }
  return problems;
}

/** Tags: the reference's are declared; every served tag has a description; each addition has a tag of its own. */
function checkTags(ours: Json, served: Json): string[] {
  const problems: string[] = [];
  const declared = new Map<string, Json>((ours.tags as Json[]).map((t) => [t.name, t]));
  for (const tag of REFERENCE.tags as string[]) {
    if (!declared.has(tag)) problems.push(`tag ${tag} is not declared`);
  }
  const referenceKeys = new Set((REFERENCE.operations as Json[]).map(keyOf));
  for (const op of served.operations as Json[]) {
    const label = labelOf(op);
    for (const tag of op.tags) {
      if (!declared.get(tag)?.description) problems.push(`${label}: tag ${tag} is not declared with a description`);
    }
    if (!op.operationId || !op.summary) problems.push(`${label}: no operationId or summary`);
    if (referenceKeys.has(keyOf(op))) continue;
    if (op.tags.filter((tag: string) => !REFERENCE.tags.includes(tag)).length === 0) {
      problems.push(`${label}: an addition to the reference without a tag of its own`);
    }
  }
  return problems;
}

describe("contract with the reference Museum API description (facts of 1.1.1)", () => {
  let ours: Json;
  let served: Json;

  beforeAll(async () => {
    // Public: fetched with no credentials, through the real Worker.
    const res = await api(`${BASE_PATH}/openapi.json`, { as: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    ours = (await res.json()) as Json;
    served = documentFacts(ours);
  });

  it("is an OpenAPI 3.1 document of interface version 1.1.1 served under /v1.1", () => {
    expect(ours.openapi).toMatch(/^3\.1\./);
    expect(ours.info.version).toBe(REFERENCE.version);
    expect(ours.servers).toEqual([{ url: BASE_PATH }]);
  });

  it("holds every reference operation (8 of them)", () => {
    expect(REFERENCE.operations.length).toBe(8);
    const servedKeys = new Set((served.operations as Json[]).map(keyOf));
    expect((REFERENCE.operations as Json[]).map(keyOf).filter((key) => !servedKeys.has(key))).toEqual([]);
  });

  it.each((REFERENCE.operations as Json[]).map((o) => [`${labelOf(o)} (${o.operationId})`, o] as const))(
    "%s: operationId, summary, tags, parameters, body, responses and security match",
    (_label, refOp) => {
      expect(compareOperation(refOp, served)).toEqual([]);
    },
  );

  it("declares MuseumPlaceholderAuth as HTTP Basic and requires it globally", () => {
    const scheme = REFERENCE.securitySchemes.MuseumPlaceholderAuth;
    expect(scheme).toEqual({ type: "http", scheme: "basic" });
    expect(served.securitySchemes.MuseumPlaceholderAuth).toEqual(scheme);
    expect(ours.security).toEqual(REFERENCE.security);
  });

  it("answers every error with application/problem+json (type, title, status, detail)", () => {
    expect(checkProblemResponses(served)).toEqual([]);
  });

  it("keeps the reference's tags and tags each addition with a declared tag of its own", () => {
    expect(checkTags(ours, served)).toEqual([]);
  });
});

// The comparison itself must see drift: a few changes to a copy of the
// reference facts (standing in for a drifted served document) are each reported.
describe("the comparison reports drift", () => {
  const operation = (doc: Json, method: string, path: string) => (doc.operations as Json[]).find((o) => o.method === method && o.path === path)!;
  const parameter = (op: Json, name: string) => (op.parameters as Json[]).find((p) => p.name === name)!;
  const mutate = (change: (doc: Json) => void) => {
    const copy: Json = structuredClone(REFERENCE);
    change(copy);
    return copy;
  };
  const problemsFor = (drifted: Json) => (REFERENCE.operations as Json[]).flatMap((o) => compareOperation(o, drifted));

  it("finds nothing when the facts are compared with themselves", () => {
    expect(problemsFor(REFERENCE)).toEqual([]);
  });

  it.each<[string, (doc: Json) => void, RegExp]>([
    ["a renamed operationId", (d) => (operation(d, "post", "/tickets").operationId = "buyTickets"), /operationId buyMuseumTickets in the reference, buyTickets served/],
    ["a missing operation", (d) => (d.operations = d.operations.filter((o: Json) => !(o.method === "delete" && o.path === "/special-events/{eventId}"))), /DELETE \/special-events\/\{eventId\}: operation missing/],
    ["a renamed query parameter", (d) => (parameter(operation(d, "get", "/special-events"), "limit").name = "pageSize"), /parameter limit \(in query\) missing/],
    ["a parameter of another type", (d) => (parameter(operation(d, "get", "/museum-hours"), "page").schema.type = "string"), /parameter page: type integer in the reference, string served/],
    ["a missing response property", (d) => delete operation(d, "post", "/tickets").responses["201"].content["application/json"].properties.confirmationCode, /response 201\.confirmationCode: property missing/],
    ["a property of another type", (d) => (operation(d, "get", "/special-events/{eventId}").responses["200"].content["application/json"].properties.price.type = "string"), /\.price: type number in the reference, string served/],
    ["a narrower enum", (d) => (operation(d, "post", "/tickets").requestBody.content["application/json"].properties.ticketType.enum = ["general"]), /enum value\(s\) event of the reference are refused/],
    ["an error response that is not problem+json", (d) => {
      const response = operation(d, "get", "/special-events/{eventId}").responses["404"];
      response.content = { "application/json": response.content["application/problem+json"] };
    }, /response 404 media type application\/problem\+json missing/],
    ["a missing security requirement", (d) => (operation(d, "get", "/museum-hours").security = []), /security scheme MuseumPlaceholderAuth not required/],
    ["a request field made required", (d) => operation(d, "post", "/tickets").requestBody.content["application/json"].required.push("phone"), /\.phone: optional in the reference, required by the served request schema/],
  ])("%s", (_name, change, expected) => {
    const problems = problemsFor(mutate(change));
    expect(problems.some((p) => expected.test(p)), problems.join("\n")).toBe(true);
  });
});
