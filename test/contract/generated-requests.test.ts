// Requests generated from the served document's own schemas (json-schema-faker,
// seeded): the service may refuse a schema-valid request only for a rule the
// document states. A 400 passes only when STATED names its field and message
// and the operation's documentation holds the words that state it; anything
// else means the document says less than the server enforces.
import { generateSync, type JsonSchema } from "json-schema-faker";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createEvent, type Problem } from "../support/helpers";

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; description?: string; required?: boolean; schema: Schema };
type Operation = {
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: { "application/json"?: { schema: Schema } } };
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** Requests per operation. */
const SAMPLES = 20;
const BODY_LIMIT_BYTES = 16 * 1024;

/**
 * The refusals of schema-valid requests that the document states in words
 * (rules between fields, or on the clock and the stored state): the error's
 * field (an order line's `tickets[i].` left off), its message, and the text
 * of the operation's documentation that states the rule.
 */
const STATED: { field: RegExp; message: RegExp; text: string }[] = [
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
    message: /(has no timed entry|^Required: .* has timed entry|^Not an entry slot of|slot has ended|^Must be left out for event tickets)/,
    text: "required there (one of the day's slots that has not ended; see `GET /availability`), refused on other days and for event tickets",
  },
  {
    field: /^eventId$/,
    message: /^(Required for event tickets|Must be left out for general tickets)\.$/,
    text: "Required if purchasing tickets for the museum's special events; refused for general tickets.",
  },
  { field: /^(\w+\.)?timeClose$/, message: /^timeOpen must be before timeClose\.$/, text: "Closing time, `HH:mm`: after `timeOpen`." },
  { field: /^(\w+\.)?entrySlotMinutes$/, message: /^Leaves no slot between /, text: "at least one slot must fit" },
  {
    field: /^(timeOpen|timeClose|capacity|entrySlotMinutes|slotCapacity)$/,
    message: /^Must be left out when closed is true\.$/,
    text: "`true`: the museum is closed that day; `timeOpen`, `timeClose` and the limits must be left out.",
  },
  { field: /^(timeOpen|timeClose)$/, message: /^Required when closed is false\.$/, text: "`false`: special hours; `timeOpen` and `timeClose` are required." },
  { field: /^email$/, message: /^Required unless the order is held \(holdMinutes\)\.$/, text: "required unless `holdMinutes` is given" },
  { field: /^email$/, message: /^Required with phone: /, text: "`phone` only together with `email`" },
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
 * Generates `count` values of `schema`. Dates fall around today (the
 * generator's own are years in the past, which would test one rule only);
 * a text field's value is sometimes rebuilt from UNICODE_POOL within its
 * `pattern` and lengths, since the generator writes ASCII alone; a
 * `multipleOf: 0.01` number is written with two decimals, as the generator
 * multiplies in binary floating point (57 * 0.01 = 0.5700000000000001).
 */
function samples(doc: Document, schema: Schema, seed: number, count: number): unknown[] {
  const random = seededRandom(seed);
  const root = { ...schema, components: withoutFormatsBesidePatterns(doc.components) } as JsonSchema;
  // Every fourth value has its required properties alone (`{}` when none are).
  return Array.from({ length: count }, (_, index) => generate(root, seed * 1000 + index * 10, index % 4 === 0 ? 0 : 0.5, random));
}

/**
 * The schemas with `format` left out where a `pattern` states the rule (the
 * e-mail address): the generator follows a format before a pattern, and its
 * e-mail format writes `alice1@example.com` alone. A value of the pattern is
 * what the server must accept.
 */
function withoutFormatsBesidePatterns<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutFormatsBesidePatterns) as T;
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).filter(([key]) => !(key === "format" && "pattern" in value));
  return Object.fromEntries(entries.map(([key, child]) => [key, withoutFormatsBesidePatterns(child)])) as T;
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
function descriptions(doc: Document, schema: unknown, seen = new Set<string>()): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const node = schema as Schema;
  const ref = typeof node.$ref === "string" ? node.$ref : undefined;
  if (ref) {
    if (seen.has(ref)) return [];
    seen.add(ref);
    return descriptions(doc, doc.components.schemas[ref.split("/").pop()!], seen);
  }
  const own = typeof node.description === "string" ? [node.description] : [];
  return [...own, ...Object.values(node).flatMap((child) => descriptions(doc, child, seen))];
}

/** What the document says about an operation: its description, its parameters' and its body's. */
function documentation(doc: Document, operation: Operation): string {
  return [
    operation.description ?? "",
    ...(operation.parameters ?? []).map((p) => p.description ?? ""),
    ...descriptions(doc, operation.requestBody?.content["application/json"]?.schema),
  ].join("\n");
}

type Sent = { operationId: string; method: string; path: string; body?: unknown };

let doc: Document;
let eventId: string;

beforeAll(async () => {
  doc = (await (await api("/v1.1/openapi.json", { as: null })).json()) as Document;
  eventId = (await createEvent({ dates: [isoDay(3), isoDay(10)] })).eventId;
});

function operations(): { method: string; path: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => typeof operation === "object" && operation.operationId)
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

/** The refusal of a schema-valid request that the document does not state, or null. */
async function unstatedRefusal(sent: Sent, res: Response, docs: string): Promise<string | null> {
  const answer = () => `${sent.operationId} ${sent.method} ${sent.path} ${JSON.stringify(sent.body) ?? ""}`.slice(0, 600);
  if ([200, 201, 204, 404, 409, 422].includes(res.status)) return null;
  const text = await res.text();
  if (res.status === 413) {
    return new TextEncoder().encode(JSON.stringify(sent.body)).length > BODY_LIMIT_BYTES ? null : `413 under the limit: ${answer()}`;
  }
  if (res.status !== 400) return `${res.status} ${text} for ${answer()}`;
  const problem = JSON.parse(text) as Problem;
  const unstated = (problem.errors ?? [{ path: "(none)", message: problem.detail }]).filter(({ path, message }) => {
    const field = path.replace(/^tickets\[\d+\]\./, "");
    return !STATED.some((rule) => rule.field.test(field) && rule.message.test(message) && docs.includes(rule.text));
  });
  return unstated.length === 0 ? null : `400 ${JSON.stringify(unstated)} for ${answer()}`;
}

describe("requests generated from the served document", () => {
  it("every rule the allow-list relies on is stated in the served document", async () => {
    const text = JSON.stringify(doc);
    for (const rule of STATED) expect(text, rule.text).toContain(JSON.stringify(rule.text).slice(1, -1));
  });

  it("a schema-valid request is refused only for a rule the document states", async () => {
    const failures: string[] = [];
    let seed = 1;
    for (const { method, path, operation } of operations()) {
      const bodySchema = operation.requestBody?.content["application/json"]?.schema;
      const query = (operation.parameters ?? []).filter((p) => p.in === "query");
      if (!bodySchema && query.length === 0) continue;
      seed += 1;
      const bodies = bodySchema ? samples(doc, bodySchema, seed, SAMPLES) : [];
      const params = Object.fromEntries(
        [...query, ...(operation.parameters ?? []).filter((p) => p.in === "path" && p.name === "date")].map((p) => [
          p.name,
          samples(doc, p.schema, seed * 7 + p.name.length, SAMPLES),
        ]),
      );
      const docs = documentation(doc, operation);
      for (let i = 0; i < SAMPLES; i++) {
        const pick = seededRandom(seed * 31 + i);
        const search = new URLSearchParams();
        for (const p of query) if (p.required || pick() < 0.5) search.set(p.name, String(params[p.name]![i]));
        const target =
          path
            .replace("{eventId}", eventId)
            .replace("{ticketId}", crypto.randomUUID())
            .replace("{orderId}", crypto.randomUUID())
            .replace("{webhookId}", crypto.randomUUID())
            .replace("{categoryId}", "zz-generated")
            .replace("{date}", String(params.date?.[i])) + (search.size ? `?${search}` : "");
        const sent: Sent = { operationId: operation.operationId, method, path: target, body: bodies[i] };
        const res = await api(`/v1.1${target}`, { method, json: bodySchema ? bodies[i] : undefined });
        const failure = await unstatedRefusal(sent, res, docs);
        if (failure) failures.push(failure);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
