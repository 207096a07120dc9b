// Requests generated from the served document's own schemas
// (json-schema-faker, seeded), and a JSON Schema validator
// (@cfworker/json-schema, draft 2020-12) that judges them against the same
// document: shared by generated-requests.test.ts (generated requests) and
// generated-mutations.test.ts (valid bodies broken at one keyword). Two
// files, as each file has a runtime of its own: a runtime's requests grow
// slower the more it has served (workers-sdk issue 15446).
import { type Schema as ValidatorSchema, Validator } from "@cfworker/json-schema";
import { generateSync, type JsonSchema } from "json-schema-faker";
import { expect } from "vitest";
import { api, createEvent, type Problem } from "../support/helpers";

export type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; description?: string; required?: boolean; schema: Schema };
export type Operation = {
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: { "application/json"?: { schema: Schema } } };
};
export type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** Requests per operation. */
const SAMPLES = 20;
const BODY_LIMIT_BYTES = 16 * 1024;
/**
 * One client address for every request of this file: its logins are then
 * remembered (the login cache is per client), which spares a D1 read a request.
 */
const CLIENT = { "CF-Connecting-IP": "198.18.6.6" };

/**
 * The refusals of schema-valid requests that the document states in words
 * (rules on the clock and the stored state, and the few between fields that
 * JSON Schema cannot compare): the error's field (an order line's
 * `tickets[i].` left off), its message, and the text of the operation's
 * documentation that states the rule.
 */
export const STATED: { field: RegExp; message: RegExp; text: string }[] = [
  { field: /^category$/, message: /^No ticket category '.*' is on sale/, text: "The ticket's category (`GET /ticket-categories`)" },
  { field: /^categoryPrices\./, message: /^No ticket category '.*' is on sale/, text: "Each must be an active category" },
  { field: /^ticketDate$/, message: /^Must be today \(.*\) or later/, text: "today or later" },
  { field: /^ticketDate$/, message: /^Tickets are sold up to /, text: "at most 365 days ahead" },
  { field: /^ticketDate$/, message: /^The event does not take place on /, text: "one of the event's dates" },
  {
    field: /^ticketDate$/,
    message: /^(The museum is closed on |General tickets for today are no longer sold)/,
    text: "a day the museum is open (today: before it closes)",
  },
  {
    field: /^entryTime$/,
    message: /(has no timed entry|^Required: .* has timed entry|^Not an entry slot of|slot has ended)/,
    text: "required there (one of the day's slots that has not ended; see `GET /availability`), refused on other days",
  },
  { field: /^(\w+\.)?timeClose$/, message: /^timeOpen must be before timeClose\.$/, text: "Closing time, `HH:mm`: after `timeOpen`." },
  { field: /^(\w+\.)?entrySlotMinutes$/, message: /^Leaves no slot between /, text: "at least one slot must fit" },
  { field: /^email$/, message: /^Required: this held order has no buyer's e-mail yet\.$/, text: "required when the order has none" },
  { field: /^query\.endDate$/, message: /^Must not be before startDate /, text: "not before `startDate`" },
  { field: /^query\.date$/, message: /^Must be from .* to /, text: "today or later, within the 365 days tickets are sold" },
  { field: /^query\.(startDate|endDate)$/, message: /^Must be from .* to /, text: "within the 365 days tickets are sold" },
  { field: /^query\.endDate$/, message: /^Must be at most 61 days after startDate /, text: "at most 61 days after it" },
  { field: /^(name|location|eventDescription|reason|description|reference|query\.reference)$/, message: /^Must not contain invisible characters/, text: "No invisible characters" },
  { field: /^(name|location|eventDescription|reason|description|reference|query\.reference)$/, message: /^Must not be blank\.$/, text: "not only whitespace" },
  { field: /^query\.since$/, message: /^Must be a cursor this service returned/, text: "The `next` of the page read before (opaque)" },
];

/**
 * Characters a fuzzer sends: accents, emoji with their joiners and selectors,
 * right-to-left letters, spaces that are not ASCII (mostly), and now and then
 * an invisible one.
 */
const VISIBLE_POOL = [..."aZ9 éßñ漢字 אב ☕🎉❤️\u00a0\u2003\u0301\u2800\t\n", "👩‍👩‍👧"];
const INVISIBLE_POOL = [..."\u200b\u200d\u00ad\u2060\ufeff\u3164\u{e0041}"];
const UNICODE_POOL = [...VISIBLE_POOL, ...VISIBLE_POOL, ...VISIBLE_POOL, ...VISIBLE_POOL, ...VISIBLE_POOL, ...VISIBLE_POOL, ...INVISIBLE_POOL];

/** A small seeded generator (mulberry32), so that every run sends the same requests. */
function seededRandom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isoDay(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The document's components as the generator and the validator read them:
 * `format` left out where a `pattern` states the rule (the e-mail address,
 * uuids), since the generator follows a format before a pattern (its e-mail
 * format writes `alice1@example.com` alone) and the server checks the
 * pattern; a date keeps its format (the pattern of an event's date bounds
 * its year, the format makes it a real calendar date).
 */
function withoutFormatsBesidePatterns<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutFormatsBesidePatterns) as T;
  if (typeof value !== "object" || value === null) return value;
  const node = value as Schema;
  const entries = Object.entries(node).filter(([key]) => !(key === "format" && "pattern" in node && node.format !== "date"));
  return Object.fromEntries(entries.map(([key, child]) => [key, withoutFormatsBesidePatterns(child)])) as T;
}

let doc: Document;
let components: Document["components"];
let eventId: string;

/** Reads the served document, and makes the event that paths and bodies name (before the tests). */
export async function loadServedDocument(): Promise<Document> {
  doc = (await (await api("/v1.1/openapi.json", { as: null })).json()) as Document;
  components = withoutFormatsBesidePatterns(doc.components);
  eventId = (await createEvent({ dates: [isoDay(3), isoDay(10)] })).eventId;
  return doc;
}

/**
 * A schema of the document with the components its references point into,
 * those alone: the generator and the validator walk every schema they are
 * given, on every call.
 */
function rooted(schema: Schema): Schema {
  const names = new Set<string>();
  const visit = (node: unknown) => {
    if (typeof node !== "object" || node === null) return;
    const ref = (node as Schema).$ref;
    if (typeof ref === "string") {
      const name = ref.split("/").pop()!;
      if (names.has(name)) return;
      names.add(name);
      visit(components.schemas[name]);
    }
    Object.values(node).forEach(visit);
  };
  visit(schema);
  return { ...schema, components: { schemas: Object.fromEntries([...names].map((name) => [name, components.schemas[name]])) } };
}

/** Whether `value` is valid against `schema`, by the document (draft 2020-12). */
export function validatorOf(schema: Schema): (value: unknown) => boolean {
  const validator = new Validator(rooted(schema) as ValidatorSchema, "2020-12", false);
  return (value) => validator.validate(value).valid;
}

/**
 * Generates `count` values of `schema`. Dates fall around today (the
 * generator's own are years in the past, which would test one rule only);
 * a text field's value is sometimes rebuilt from UNICODE_POOL within its
 * `pattern` and lengths, since the generator writes ASCII alone; a
 * `multipleOf: 0.01` number is written with two decimals, as the generator
 * multiplies in binary floating point (57 * 0.01 = 0.5700000000000001).
 */
export function samples(schema: Schema, seed: number, count: number): unknown[] {
  const random = seededRandom(seed);
  // Every fourth value has its required properties alone (`{}` when none are).
  return Array.from({ length: count }, (_, index) => generate(rooted(schema) as JsonSchema, seed * 1000 + index * 10, index % 4 === 0 ? 0 : 0.5, random));
}

/**
 * One value of a schema. json-schema-faker 0.6.3 throws when the optional
 * properties it chose fall short of `minProperties` (it only adds undeclared
 * ones), so such a draw is made again with the next seed, half of the
 * optional properties this time.
 */
function generate(root: JsonSchema, seed: number, optionals: number, random: () => number): unknown {
  for (let attempt = 0; ; attempt++) {
    try {
      return draw(root, seed + attempt, attempt === 0 ? optionals : 0.5, random);
    } catch (error) {
      if (attempt === 5 || !String(error).includes("were not found while additionalProperties is false")) throw error;
    }
  }
}

function draw(root: JsonSchema, seed: number, optionalsProbability: number, random: () => number): unknown {
  const unicodeText = (value: string, node: Schema) => {
    const pattern = new RegExp(String(node.pattern), "u");
    const [min, max] = [Number(node.minLength ?? 0), Math.min(Number(node.maxLength ?? 40), 40)];
    for (let attempt = 0; attempt < 20; attempt++) {
      const length = min + Math.floor(random() * (max - min + 1));
      const text = Array.from({ length }, () => UNICODE_POOL[Math.floor(random() * UNICODE_POOL.length)]).join("");
      const codePoints = [...text].length;
      if (pattern.test(text) && codePoints >= min && codePoints <= Number(node.maxLength ?? Infinity)) return text;
    }
    return value;
  };
  return generateSync(root, {
    seed,
    optionalsProbability,
    formats: { date: (r) => isoDay(r.int(-30, 400)) },
    outputTransform: (value, node) => {
      if (typeof node !== "object") return value;
      if (typeof value === "number" && node.multipleOf === 0.01) return Number(value.toFixed(2));
      if (typeof value === "string" && typeof node.pattern === "string" && node.pattern.startsWith("^[^") && random() < 0.5) {
        return unicodeText(value, node);
      }
      return value;
    },
  });
}

/** Every description in a schema, its references followed. */
function descriptions(schema: unknown, seen = new Set<string>()): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const node = schema as Schema;
  const ref = typeof node.$ref === "string" ? node.$ref : undefined;
  if (ref) {
    if (seen.has(ref)) return [];
    seen.add(ref);
    return descriptions(doc.components.schemas[ref.split("/").pop()!], seen);
  }
  const own = typeof node.description === "string" ? [node.description] : [];
  return [...own, ...Object.values(node).flatMap((child) => descriptions(child, seen))];
}

/** What the document says about an operation: its description, its parameters' and its body's. */
function documentation(operation: Operation): string {
  return [
    operation.description ?? "",
    ...(operation.parameters ?? []).map((p) => p.description ?? ""),
    ...descriptions(operation.requestBody?.content["application/json"]?.schema),
  ].join("\n");
}

type Sent = { operationId: string; method: string; path: string; body?: unknown };

export function operations(): { method: string; path: string; operation: Operation; body?: Schema }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => typeof operation === "object" && operation.operationId)
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation, body: operation.requestBody?.content["application/json"]?.schema })),
  );
}

/** An operation's path with its parameters filled in (`overrides` by name). */
export function target(path: string, fill: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name in fill) return encodeURIComponent(fill[name]!);
    if (name === "eventId") return eventId;
    if (name === "categoryId") return "zz-generated";
    if (name === "date") return "2090-01-01";
    return crypto.randomUUID();
  });
}

export function send(method: string, url: string, body?: unknown): Promise<Response> {
  return api(`/v1.1${url}`, { method, json: body, headers: CLIENT });
}

const describeSent = (sent: Sent) => `${sent.operationId} ${sent.method} ${sent.path} ${JSON.stringify(sent.body) ?? ""}`.slice(0, 600);

/** The refusal of a schema-valid request that the document does not state, or null. */
async function unstatedRefusal(sent: Sent, res: Response, docs: string): Promise<string | null> {
  if ([200, 201, 204, 404, 409, 422].includes(res.status)) return null;
  const text = await res.text();
  if (res.status === 413) {
    return new TextEncoder().encode(JSON.stringify(sent.body)).length > BODY_LIMIT_BYTES ? null : `413 under the limit: ${describeSent(sent)}`;
  }
  if (res.status !== 400) return `${res.status} ${text} for ${describeSent(sent)}`;
  const problem = JSON.parse(text) as Problem;
  const unstated = (problem.errors ?? [{ path: "(none)", message: problem.detail }]).filter(({ path, message }) => {
    const field = path.replace(/^tickets\[\d+\]\./, "");
    return !STATED.some((rule) => rule.field.test(field) && rule.message.test(message) && docs.includes(rule.text));
  });
  return unstated.length === 0 ? null : `400 ${JSON.stringify(unstated)} for ${describeSent(sent)}`;
}

/** A schema-invalid request that was not refused with a validation problem, or null. */
async function unrefused(sent: Sent, res: Response): Promise<string | null> {
  if (res.status === 413 && new TextEncoder().encode(JSON.stringify(sent.body)).length > BODY_LIMIT_BYTES) return null;
  const problem = res.status === 400 ? ((await res.json()) as Problem) : null;
  return problem?.type === "/problems/validation-error" && (problem.errors ?? []).length > 0 ? null : `${res.status}, not a 400, for schema-invalid ${describeSent(sent)}`;
}

// ---------------------------------------------------------------------------
// One keyword broken at a time

type Path = (string | number)[];

/** How the server names a field: `tickets[0].eventId`, `categoryPrices.Bad Key`. */
function fieldName(path: Path): string {
  return path.map((segment, i) => (typeof segment === "number" ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join("");
}

/** A schema with its `$ref`s resolved and its `allOf` parts merged (as far as walking the properties needs). */
export function resolved(schema: unknown): Schema {
  if (typeof schema !== "object" || schema === null) return {};
  let node = schema as Schema;
  while (typeof node.$ref === "string") node = { ...components.schemas[node.$ref.split("/").pop()!], ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$ref")) };
  if (!Array.isArray(node.allOf)) return node;
  const parts = (node.allOf as unknown[]).map(resolved);
  const rest = Object.fromEntries(Object.entries(node).filter(([k]) => k !== "allOf"));
  return parts.reduce<Schema>(
    (merged, part) => ({
      ...part,
      ...merged,
      properties: { ...(part.properties as Schema), ...(merged.properties as Schema) },
      required: [...((part.required as string[]) ?? []), ...((merged.required as string[]) ?? [])],
    }),
    rest,
  );
}

function get(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((value, key) => (value as Record<string | number, unknown> | undefined)?.[key], root);
}

/** A copy of `root` with the value at `path` changed by `change` (the containers on the way must exist). */
function changed(root: unknown, path: Path, change: (value: unknown) => unknown): unknown {
  const copy = structuredClone(root);
  if (path.length === 0) return change(copy);
  const parent = get(copy, path.slice(0, -1)) as Record<string | number, unknown> | undefined;
  if (typeof parent !== "object" || parent === null) return undefined;
  const key = path.at(-1)!;
  const value = change(parent[key]);
  if (value === undefined) delete parent[key];
  else parent[key] = value;
  return copy;
}

/** A string that breaks `pattern`: a near miss first (a version-0 uuid), else a control character, a phrase, nothing. */
export function breaking(pattern: string): string {
  const regex = new RegExp(pattern, "u");
  return ["a54a57ca-36f8-021b-a6b4-2e8f26858a4c", "\u0000", "not a match!", ""].find((text) => !regex.test(text))!;
}

/** A value of `schema` the generator makes (seeded), not null where the schema also allows null. */
function valueOf(schema: unknown, seed: number): unknown {
  for (let attempt = 0; ; attempt++) {
    const value = generate(rooted(resolved(schema)) as JsonSchema, seed + attempt, 0.5, seededRandom(seed + attempt));
    if (value !== null || attempt === 9) return value;
  }
}

/**
 * One keyword broken: `prepare` makes a schema-valid body where the keyword
 * matters, `mutate` breaks it there, `fields` says which fields the server
 * may name for the broken body (the one broken, or one the body now lacks).
 */
type Mutation = { keyword: string; prepare: (base: unknown) => unknown; mutate: (prepared: unknown) => unknown; fields: (broken: unknown) => string[] };

/** Every keyword of a body schema that this test breaks (see `Mutation`). */
export function mutations(schema: unknown, path: Path = [], depth = 0): Mutation[] {
  const node = resolved(schema);
  if (depth > 6) return [];
  const found: Mutation[] = [];
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const at = (field: string) => [...path, field];
  // The field present (a value of its own schema when it is missing or null).
  const ensure = (field: string, seed: number) => (base: unknown) =>
    changed(base, at(field), (value) => value ?? valueOf(properties[field], seed));
  if (typeof node.pattern === "string" && path.length > 0) {
    const pattern = node.pattern;
    found.push({
      keyword: `pattern ${pattern.slice(0, 30)}`,
      prepare: (base) => base,
      mutate: (prepared) => changed(prepared, path, () => breaking(pattern)),
      fields: () => [fieldName(path)],
    });
  }
  if (typeof node.propertyNames === "object" && node.propertyNames !== null) {
    const pattern = String((node.propertyNames as Schema).pattern);
    const key = "Bad Key";
    expect(new RegExp(pattern, "u").test(key)).toBe(false);
    found.push({
      keyword: "propertyNames",
      prepare: (base) => changed(base, path, (value) => (typeof value === "object" && value !== null ? value : {})),
      mutate: (prepared) => changed(prepared, path, (value) => ({ ...(value as object), [key]: valueOf(node.additionalProperties, 7) })),
      fields: () => [fieldName([...path, key])],
    });
  }
  for (const [trigger, dependents] of Object.entries((node.dependentRequired ?? {}) as Record<string, string[]>)) {
    for (const dependent of dependents) {
      found.push({
        keyword: `dependentRequired ${trigger} → ${dependent}`,
        prepare: (base) => ensure(dependent, 11)(ensure(trigger, 13)(base)),
        mutate: (prepared) => changed(prepared, at(dependent), () => undefined),
        fields: () => [fieldName(at(dependent))],
      });
    }
  }
  // A `oneOf` of branches, each pinning fields (`const`), requiring some and
  // refusing others (`false`): in a body of one branch, a required field
  // taken out or a refused one put in. The server names that field, or one
  // another branch requires that the body lacks.
  const branches = ((node.oneOf ?? []) as Schema[]).map(resolved);
  const branchFacts = branches.map((branch) => {
    const own = (branch.properties ?? {}) as Record<string, unknown>;
    const pinned = Object.keys(own).filter((field) => typeof own[field] === "object" && own[field] !== null && "const" in (own[field] as Schema));
    return {
      pinned: Object.fromEntries(pinned.map((field) => [field, (own[field] as { const: unknown }).const])),
      required: ((branch.required ?? []) as string[]).filter((field) => !pinned.includes(field)),
      refused: Object.keys(own).filter((field) => own[field] === false),
    };
  });
  branchFacts.forEach((facts, index) => {
    const prepare = (base: unknown) => {
      let body = base;
      for (const [field, value] of Object.entries(facts.pinned)) body = changed(body, at(field), () => value);
      for (const field of facts.refused) body = changed(body, at(field), () => undefined);
      for (const field of facts.required) body = ensure(field, 17)(body);
      return body;
    };
    const lackedElsewhere = (broken: unknown) =>
      branchFacts.filter((_, other) => other !== index).flatMap((other) => other.required.filter((field) => get(broken, at(field)) === undefined));
    const label = `oneOf ${JSON.stringify(facts.pinned)}`;
    for (const field of facts.required) {
      found.push({
        keyword: `${label}: required ${field}`,
        prepare,
        mutate: (prepared) => changed(prepared, at(field), () => undefined),
        fields: (broken) => [field, ...lackedElsewhere(broken)].map((name) => fieldName(at(name))),
      });
    }
    for (const field of facts.refused) {
      found.push({
        keyword: `${label}: refused ${field}`,
        prepare,
        mutate: (prepared) => changed(prepared, at(field), () => valueOf(properties[field], 19)),
        fields: (broken) => [field, ...lackedElsewhere(broken)].map((name) => fieldName(at(name))),
      });
    }
  });
  for (const [field, child] of Object.entries(properties)) {
    if (child === false) continue;
    for (const inner of mutations(child, at(field), depth + 1)) {
      found.push({ ...inner, prepare: (base) => inner.prepare(ensure(field, 23)(base)) });
    }
  }
  if (typeof node.items === "object" && node.items !== null) {
    // The first item; an array that must have items has one in every valid body.
    for (const inner of mutations(node.items, [...path, 0], depth + 1)) {
      found.push({ ...inner, prepare: (base) => inner.prepare(changed(base, path, (value) => (Array.isArray(value) && value.length > 0 ? value : [valueOf(node.items, 29)]))) });
    }
  }
  return found;
}

/**
 * Sends SAMPLES generated requests to each operation that takes a body or
 * query parameters (the `part`-th of `parts` shares of them, in document
 * order): a schema-valid one may be refused only for a rule STATED, a
 * schema-invalid one must be a 400.
 */
export async function checkGeneratedRequests(part: number, parts: number): Promise<void> {
  const failures: string[] = [];
  const counts = { valid: 0, invalid: 0 };
  const withInput = operations().filter(({ operation, body }) => body || (operation.parameters ?? []).some((p) => p.in === "query"));
  const share = Math.ceil(withInput.length / parts);
  for (const [index, { method, path, operation, body: bodySchema }] of withInput.entries()) {
    if (Math.floor(index / share) !== part - 1) continue;
    const query = (operation.parameters ?? []).filter((p) => p.in === "query");
    const seed = index + 2;
    const bodies = bodySchema ? samples(bodySchema, seed, SAMPLES) : [];
    const bodyIsValid = bodySchema ? validatorOf(bodySchema) : () => true;
    const dateParameter = (operation.parameters ?? []).filter((p) => p.in === "path" && p.name === "date");
    const parameters = [...query, ...dateParameter];
    const values = Object.fromEntries(parameters.map((p) => [p.name, samples(p.schema, seed * 7 + p.name.length, SAMPLES)]));
    const valueIsValid = Object.fromEntries(parameters.map((p) => [p.name, validatorOf(p.schema)]));
    const docs = documentation(operation);
    const requests = Array.from({ length: SAMPLES }, (_, i) => {
      const pick = seededRandom(seed * 31 + i);
      const search = new URLSearchParams();
      let valid = bodyIsValid(bodies[i]);
      for (const p of query) {
        if (p.required || pick() < 0.5) {
          search.set(p.name, String(values[p.name]![i]));
          valid &&= valueIsValid[p.name]!(values[p.name]![i]);
        }
      }
      const date = values.date?.[i];
      if (date !== undefined) valid &&= valueIsValid.date!(date);
      const url = target(path, date === undefined ? {} : { date: String(date) }) + (search.size ? `?${search}` : "");
      return { sent: { operationId: operation.operationId, method, path: url, body: bodies[i] } as Sent, valid };
    });
    for (const { sent, valid } of requests) {
      counts[valid ? "valid" : "invalid"] += 1;
      const res = await send(method, sent.path, bodySchema ? sent.body : undefined);
      const failure = valid ? await unstatedRefusal(sent, res, docs) : await unrefused(sent, res);
      if (failure) failures.push(failure);
    }
  }
  expect(failures).toEqual([]);
  // The generator follows the document well enough that most requests are valid.
  expect(counts.valid).toBeGreaterThan(counts.invalid * 4);
}
