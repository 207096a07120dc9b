/**
 * Property-based fuzzing of the Worker (fast-check), shared by the
 * test/hardening/fuzz-*.test.ts files. Every generated request goes through
 * the real Worker in workerd with a real D1, and every response must keep the
 * invariants in `checkResponse`:
 *
 * - never a 5xx;
 * - every 4xx is `application/problem+json` with `{ type, title, status, detail }`,
 *   `status` equal to the response's;
 * - a refused write leaves the database byte for byte as it was (every table
 *   but `login_failures`, the login throttle's counter, which a failed login
 *   changes by design).
 *
 * Seeded and reproducible: FUZZ_SEED (default below) and FUZZ_RUNS (runs per
 * property) come from the environment through vitest.config.ts:
 *
 *   FUZZ_SEED=12345 FUZZ_RUNS=1000 npx vitest run test/hardening
 *
 * A failure prints the property's seed and the shrunk counterexample, and
 * `{ seed, path }` from the report replays it exactly (see docs/hardening.md).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { expect } from "vitest";
import worker from "../../src/index";
import { authHeader, basic, dumpDatabase, streamOf, type AccountKey } from "../support/helpers";

const DEFAULT_SEED = 20260507;
const DEFAULT_RUNS = 300;
const SEED = /^\d+$/.test(env.FUZZ_SEED) ? Number(env.FUZZ_SEED) : DEFAULT_SEED;
const RUNS = /^\d+$/.test(env.FUZZ_RUNS) ? Number(env.FUZZ_RUNS) : DEFAULT_RUNS;
/** Per-test time limit for a property (the default 5 s is far too short). */
export const PROPERTY_TIMEOUT_MS = 240_000;

/** A stable number per property name, so that each property has its own seed. */
function nameHash(name: string): number {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return hash % 1_000_000;
}

export type FuzzRequest = {
  method: string;
  /** Path and query, already encoded (it may hold deliberately broken escapes). */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** Send the body as a stream, without Content-Length (the body limit must still hold). */
  chunked?: boolean;
};

// ---------------------------------------------------------------------------
// Strings

/** Values that have broken services before. */
const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uD800",
  "\uDFFF",
  "x\uD83D",
  "\uDE00y",
  "\u202Eevil\u202C",
  "\u200F\u202Bשלום",
  "مرحبا",
  "\uFEFF",
  "\u200B",
  "👩‍👩‍👧‍👦",
  "e\u0301",
  "\uFFFF",
  "\uFFFE",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "null",
  "undefined",
  "NaN",
  "-0",
  "1e309",
  "0x10",
  "2023-02-30",
  "9999-12-31",
  "0000-01-01",
  "2024-1-1",
  " 2024-01-01",
  "2024-01-01T00:00:00Z",
  "../../etc/passwd",
  "%00",
  "%",
  "' OR 1=1 --",
  '"; DROP TABLE tickets; --',
  "<script>alert(1)</script>",
  "${7*7}",
  "\\",
  "\r\n",
  "\t",
  "__proto__",
  "constructor",
];

/** A single code point, often an awkward one (controls, lone surrogates, bidi marks, astral). */
const oddChar = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x00, max: 0x1f }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }) },
    { weight: 1, arbitrary: fc.constantFrom(0x202e, 0x200f, 0x202b, 0xfeff, 0x200b, 0xfffd, 0xffff, 0x0301) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0x10ffff }) },
  )
  .map((cp) => String.fromCodePoint(cp));

/** Short text of awkward characters (the kind a name field may legitimately hold, and some it may not). */
export const oddText = fc.string({ unit: oddChar, minLength: 1, maxLength: 30 });

const hugeString = fc
  .tuple(fc.constantFrom("a", "é", "😀", "\uD800", "\u0000", " "), fc.integer({ min: 201, max: 6000 }))
  .map(([ch, n]) => ch.repeat(n));

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 4, arbitrary: fc.string({ unit: oddChar, maxLength: 40 }) },
  { weight: 1, arbitrary: hugeString },
);

// ---------------------------------------------------------------------------
// JSON values

export const oddNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 0.001, 1.005, 0.1 + 0.2, 1e-9, 1_000_000, 1_000_000.01, 2 ** 53 + 1, 1e308, -1e308, 5e-324),
);

const scalar: fc.Arbitrary<unknown> = fc.oneof(oddString, oddNumber, fc.boolean(), fc.constant(null));

/** Anything JSON can say, weighted towards values near a field's type. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.dictionary(oddString, scalar, { maxKeys: 4 }) },
);

/** A field: mostly a plausible value, often something else entirely. */
function field<T>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 2, arbitrary: anyJson });
}

/**
 * A body built from a model of the operation's fields (each maybe missing,
 * maybe mistyped), sometimes with unknown or hostile keys, sometimes any JSON.
 */
function jsonObject(model: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const fields = Object.fromEntries(Object.entries(model).map(([key, arb]) => [key, field(arb)]));
  const record = fc.record(fields, { requiredKeys: [] });
  const extra = fc.dictionary(fc.oneof(fc.constantFrom("eventId", "ticketId", "__proto__", "constructor", "id", "status"), oddString), anyJson, {
    maxKeys: 2,
  });
  return fc.oneof(
    { weight: 6, arbitrary: record },
    { weight: 2, arbitrary: fc.tuple(record, extra).map(([a, b]) => ({ ...b, ...a })) },
    { weight: 1, arbitrary: anyJson },
  );
}

/**
 * Bodies for an operation: valid ones (`valid`), valid ones with one field
 * replaced by anything, dropped, or joined by an unknown key (the cases a
 * validator most often gets wrong), and free-form ones from `model`.
 */
export function bodies(valid: fc.Arbitrary<Record<string, unknown>>, model: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const keys = Object.keys(model);
  const replaced = fc
    .tuple(valid, fc.constantFrom(...keys), anyJson)
    .map(([body, key, value]) => ({ ...body, [key]: value }));
  const dropped = fc.tuple(valid, fc.constantFrom(...keys)).map(([body, key]) => {
    const copy = { ...body };
    delete copy[key];
    return copy;
  });
  const unknownKey = fc
    .tuple(valid, fc.oneof(fc.constantFrom("eventId", "ticketId", "id", "__proto__", "Name", "name "), oddString), anyJson)
    .map(([body, key, value]) => {
      const copy: Record<string, unknown> = { ...body };
      Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
      return copy;
    });
  return fc.oneof(
    { weight: 2, arbitrary: valid },
    { weight: 4, arbitrary: replaced },
    { weight: 1, arbitrary: dropped },
    { weight: 1, arbitrary: unknownKey },
    { weight: 3, arbitrary: jsonObject(model) },
  );
}

/** Text that is not JSON, or JSON of a kind that breaks naive parsers. */
const brokenJson = fc.oneof(
  fc.constantFrom(
    "",
    "{",
    "}",
    "[1,]",
    '{"a":1,}',
    "\uFEFF{}",
    "NaN",
    "undefined",
    "{'a':1}",
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"__proto__":{"admin":true}}',
    "[".repeat(5000) + "]".repeat(5000),
    `{"name":${"[".repeat(2000)}${"]".repeat(2000)}}`,
    "1".repeat(400),
    '"just a string"',
    "null",
    "true",
  ),
  fc.string({ unit: oddChar, maxLength: 60 }),
  fc.integer({ min: 16 * 1024 - 8, max: 40 * 1024 }).map((n) => `{"name":"${"x".repeat(n)}"}`),
);

/** A request body: mostly the JSON of `value`, sometimes broken text. */
export function body(value: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 8, arbitrary: value.map((v) => JSON.stringify(v) ?? "null") }, { weight: 2, arbitrary: brokenJson });
}

// ---------------------------------------------------------------------------
// Plausible values

const BASE_DAY = Date.UTC(2026, 0, 1);
export function isoDay(offset: number): string {
  return new Date(BASE_DAY + offset * 86_400_000).toISOString().slice(0, 10);
}

/** A real date, 2026–2035 (inside the range the service handles), or an odd string. */
export const date = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 3650 }).map(isoDay) },
  { weight: 1, arbitrary: fc.constantFrom("2023-02-30", "2024-02-29", "2025-02-29", "0001-01-01", "9999-12-31", "2026-13-01", "2026-00-10", "26-01-01") },
  { weight: 1, arbitrary: oddString },
);

export const time = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 })).map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`) },
  { weight: 1, arbitrary: fc.constantFrom("9:00", "09:00:00", "24:00", "23:59", "00:00", "12h30") },
  { weight: 1, arbitrary: oddString },
);

export function uuidLike(known: () => string[], knownWeight = 3): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: knownWeight, arbitrary: fc.nat().map((n) => known()[n % Math.max(1, known().length)] ?? crypto.randomUUID()) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom("00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "not-a-uuid", "123") },
    { weight: 2, arbitrary: oddString },
  );
}

// ---------------------------------------------------------------------------
// URLs

const encoder = new TextEncoder();

/** Percent-encodes every byte of the UTF-8 form that is not unreserved (lone surrogates become U+FFFD, as in any client). */
function encode(text: string): string {
  let out = "";
  for (const byte of encoder.encode(text)) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Escapes that are broken or surprising as they stand in a URL. */
const rawEscapes = fc.constantFrom("%ED%A0%80", "%FF", "%zz", "%", "%0", "%00", "%C0%AF", "%2F", "%2e%2e", "+", "%2B", "&", "=", "==", ";", "%25", "%E2%80%AE");

/** A path segment: a plausible value, any string encoded, or raw odd escapes. */
export function segment(plausible: fc.Arbitrary<string>, plausibleWeight = 4): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: plausibleWeight, arbitrary: plausible.map(encode) },
    { weight: 2, arbitrary: oddString.map(encode) },
    { weight: 1, arbitrary: fc.array(rawEscapes, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("")) },
    { weight: 1, arbitrary: fc.constantFrom("..", ".", "", "%2e", "a/b", "x".repeat(3000)) },
  );
}

/**
 * A query string: the operation's parameters (repeated, conflicting, odd
 * values) mixed with unknown ones.
 */
export function query(params: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const names = Object.keys(params);
  const known = fc.constantFrom(...names).chain((name) =>
    fc.oneof({ weight: 3, arbitrary: params[name]! }, { weight: 2, arbitrary: oddString }).map((value) => `${name}=${encode(value)}`),
  );
  const raw = fc.tuple(fc.constantFrom(...names, "x", ""), rawEscapes).map(([name, value]) => `${name}=${value}`);
  const unknown = fc.tuple(oddString, oddString).map(([name, value]) => `${encode(name)}=${encode(value)}`);
  const bare = fc.constantFrom(...names).map((name) => name);
  return fc
    .array(fc.oneof({ weight: 5, arbitrary: known }, { weight: 1, arbitrary: raw }, { weight: 1, arbitrary: unknown }, { weight: 1, arbitrary: bare }), {
      maxLength: 6,
    })
    .map((parts) => (parts.length === 0 ? "" : `?${parts.join("&")}`));
}

export const pageParam = fc.oneof(
  fc.integer({ min: -2, max: 40 }).map(String),
  fc.constantFrom("1.5", "1e1", "0x1", " 1", "01", "9007199254740993", "99999999999999999999", "-0", "+1"),
);

// ---------------------------------------------------------------------------
// Headers

/**
 * A header value: printable ASCII, tabs and spaces (a client can send no CR,
 * LF or NUL; workerd re-encodes anything above 0x7E as UTF-8 and warns about
 * each, which would only add noise).
 */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.constantFrom("", " ", "\t", "x".repeat(8000), "a\tb", "\"unterminated", "=?utf-8?b?w6k=?="),
);

const authorization: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<AccountKey>("admin").map((a) => authHeader(a)) },
  { weight: 3, arbitrary: fc.constant<AccountKey>("sales").map((a) => authHeader(a)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.tuple(headerValue, headerValue).map(([user, pass]) => basic(user.replace(/:/g, ""), pass)) },
  { weight: 1, arbitrary: headerValue.map((v) => `Basic ${v}`) },
  { weight: 1, arbitrary: headerValue },
);

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant("application/json") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/json;charset=utf-16",
      "application/jsonx",
      "application/problem+json",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      "",
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: headerValue },
);

/** Headers the service reads, with odd values now and then. */
function headers(extra: Record<string, fc.Arbitrary<string | undefined>> = {}): fc.Arbitrary<Record<string, string>> {
  const model: Record<string, fc.Arbitrary<string | undefined>> = {
    Authorization: authorization,
    "Content-Type": contentType,
    "X-D1-Bookmark": fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: headerValue }),
    Accept: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: headerValue }),
    Origin: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: headerValue }),
    ...extra,
  };
  // A client address per request (198.18.0.0/15), so that the fuzzer's failed
  // logins rarely throttle its next requests (a 429 is checked like any 4xx).
  const client = fc.tuple(fc.nat(1), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `198.${18 + a}.${b}.${c}`);
  // Mostly a well-behaved client (so the body and path reach the handlers),
  // often an odd one.
  const clean: Record<string, fc.Arbitrary<string | undefined>> = {
    Authorization: fc.constant(authHeader("admin")),
    "Content-Type": fc.constant("application/json"),
  };
  for (const [name, arb] of Object.entries(extra)) clean[name] = arb;
  const values = fc.oneof({ weight: 3, arbitrary: fc.record(clean) }, { weight: 2, arbitrary: fc.record(model) });
  return fc.record({ client, values }).map(({ client, values }) => {
    const out: Record<string, string> = { "CF-Connecting-IP": client };
    for (const [name, value] of Object.entries(values)) if (value !== undefined) out[name] = value;
    return out;
  });
}

export function optionalHeader(value: fc.Arbitrary<string>): fc.Arbitrary<string | undefined> {
  return fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: value }, { weight: 1, arbitrary: headerValue });
}

// ---------------------------------------------------------------------------
// Sending and checking

/**
 * Sends a request to the Worker's default export (src/index.ts), in this
 * workerd isolate, with the test bindings and a real D1. Called directly
 * rather than through `exports.default.fetch`: under vitest-pool-workers
 * 0.15 every request through that loopback is slower than the one before
 * (about 5 ms at first, 45 ms after 800; cloudflare/workers-sdk#15446), which
 * would make a few thousand fuzz cases take minutes.
 */
export async function send(request: FuzzRequest): Promise<Response> {
  const method = request.method.toUpperCase();
  const hasBody = request.body !== undefined && method !== "GET" && method !== "HEAD";
  const ctx = createExecutionContext();
  const res = await worker.fetch!(
    new Request(`https://museum.test${request.target}`, {
      method: request.method,
      headers: request.headers,
      body: hasBody ? (request.chunked ? streamOf(request.body!, 1024) : request.body) : undefined,
      ...(hasBody && request.chunked ? { duplex: "half" } : {}),
    } as RequestInit) as Request<unknown, IncomingRequestCfProperties>,
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** Requests for one operation: a method, targets, headers (with `extraHeaders`), maybe bodies. */
export function requests(
  method: fc.Arbitrary<string> | string,
  target: fc.Arbitrary<string>,
  payload?: fc.Arbitrary<string | undefined>,
  extraHeaders: Record<string, fc.Arbitrary<string | undefined>> = {},
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: typeof method === "string" ? fc.constant(method) : method,
      target,
      headers: headers(extraHeaders),
      body: payload ?? fc.constant(undefined),
      chunked: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map(({ body, chunked, ...rest }) => ({ ...rest, ...(body === undefined ? {} : { body, ...(chunked ? { chunked } : {}) }) }));
}

/** Every table but the login throttle's counter (a refused login is meant to write it). */
function snapshot(): Promise<string> {
  return dumpDatabase({ except: ["login_failures"] });
}

/**
 * Lone surrogates written as `\uD800`: a failure message goes to vitest over
 * a WebSocket as UTF-8, and a raw lone surrogate there aborts the whole run.
 */
export function printable(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

function describeRequest(request: FuzzRequest): string {
  const shown = JSON.stringify({ ...request, body: request.body && request.body.length > 300 ? `${request.body.slice(0, 300)}… (${request.body.length})` : request.body });
  return shown.length > 2000 ? `${shown.slice(0, 2000)}…` : shown;
}

/** The invariants every response keeps; throws (failing the property) otherwise. */
export async function checkResponse(request: FuzzRequest, res: Response): Promise<void> {
  const fail = (why: string) => {
    throw new Error(`${why}\nrequest: ${describeRequest(request)}`);
  };
  if (res.status >= 500) fail(`${res.status}: ${await res.text()}`);
  if (res.headers.get("X-Content-Type-Options") !== "nosniff") fail(`no X-Content-Type-Options on a ${res.status}`);
  if (!res.headers.get("X-Request-Id")) fail(`no X-Request-Id on a ${res.status}`);
  if (res.status < 400) return;
  if (res.headers.get("Content-Type") !== "application/problem+json") fail(`${res.status} is ${res.headers.get("Content-Type")}`);
  if (request.method.toUpperCase() === "HEAD") return;
  const text = await res.text();
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return fail(`${res.status} body is not JSON: ${text.slice(0, 200)}`);
  }
  for (const key of ["type", "title", "detail"]) {
    if (typeof problem[key] !== "string" || problem[key] === "") fail(`${res.status} problem without ${key}: ${text.slice(0, 300)}`);
  }
  if (problem.status !== res.status) fail(`problem status ${String(problem.status)} on a ${res.status}`);
}

export type FuzzOptions = {
  /** Compare the database before and after each refused request. */
  write?: boolean;
  /**
   * Checks an accepted request's response further (what was stored is what
   * was sent); throws to fail the property.
   */
  onSuccess?: (request: FuzzRequest, res: Response) => Promise<void>;
};

/**
 * Runs one property: `requests` generates requests; each is sent and checked.
 * Returns the statuses seen, so a test can assert the property reached past
 * the validators (a fuzzer that only ever sees 401 proves nothing).
 */
export async function fuzz(name: string, requests: fc.Arbitrary<FuzzRequest>, options: FuzzOptions = {}): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let baseline: string | undefined;

  async function runCase(request: FuzzRequest): Promise<void> {
    if (options.write) baseline ??= await snapshot();
    const res = await send(request);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const refused = res.status >= 400;
    await checkResponse(request, res);
    if (!refused && options.onSuccess) {
      try {
        await options.onSuccess(request, res);
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nrequest: ${describeRequest(request)}`);
      }
    }
    await res.body?.cancel().catch(() => {});
    if (options.write) {
      const after = await snapshot();
      if (refused && after !== baseline) {
        throw new Error(`a refused ${request.method} (${res.status}) changed the database\nrequest: ${describeRequest(request)}`);
      }
      baseline = after;
    }
  }

  await fc.assert(
    fc.asyncProperty(requests, async (request) => {
      try {
        await runCase(request);
      } catch (error) {
        // A fresh error without `cause`: the original may carry lone surrogates (see printable).
        throw new Error(printable(error instanceof Error ? error.message : String(error)));
      }
    }),
    { seed: SEED + nameHash(name), numRuns: RUNS },
  );
  console.info(name, summary(statuses));
  return statuses;
}

/** Asserts that the property reached each of the `wanted` statuses at least once. */
export function expectSome(statuses: Map<number, number>, ...wanted: number[]): void {
  for (const status of wanted) expect(statuses.get(status) ?? 0, `some ${status}: ${summary(statuses)}`).toBeGreaterThan(0);
}

/** "200×12 400×80 …" for a test's log line. */
export function summary(statuses: Map<number, number>): string {
  return [...statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(" ");
}
