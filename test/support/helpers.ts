import { env, exports } from "cloudflare:workers";
import { afterEach, beforeEach, expect, vi } from "vitest";
import type { AccountRole } from "../../src/accounts/schemas";
import { sha256Hex } from "../../src/platform/crypto";
import { clearD1Faults } from "./d1-faults";

/** Test-only accounts; their secrets exist nowhere but in this file. */
export const ACCOUNTS = {
  admin: { name: "test-admin", secret: "admin-secret-for-tests-only-0123456789", role: "admin" },
  sales: { name: "test-sales", secret: "sales-secret-for-tests-only-0123456789", role: "sales" },
  /** A second sales account (another kiosk): it sees only what it sold, never test-sales's tickets. */
  kiosk: { name: "test-kiosk", secret: "kiosk-secret-for-tests-only-0123456789", role: "sales" },
  boxOffice: { name: "test-box-office", secret: "box-office-secret-for-tests-only-01234", role: "box-office" },
  gate: { name: "test-gate", secret: "gate-secret-for-tests-only-01234567890", role: "gate" },
  revoked: { name: "test-revoked", secret: "revoked-secret-for-tests-only-012345", role: "admin" },
} as const;

export async function seedTestAccounts() {
  const statements = await Promise.all(
    Object.values(ACCOUNTS).map(async (a) =>
      env.DB.prepare(
        `INSERT INTO accounts (name, role, secret_sha256, revoked_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (name) DO NOTHING`,
      ).bind(a.name, a.role, await sha256Hex(a.secret), a.name === "test-revoked" ? "2026-01-01T00:00:00Z" : null),
    ),
  );
  await env.DB.batch(statements);
}

export type AccountKey = keyof typeof ACCOUNTS;

export function basic(name: string, secret: string): string {
  return `Basic ${btoa(`${name}:${secret}`)}`;
}

export function authHeader(account: AccountKey = "admin"): string {
  const a = ACCOUNTS[account];
  return basic(a.name, a.secret);
}

type ApiRequest = {
  method?: string;
  as?: AccountKey | null;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
};

/**
 * A client address of its own for each request (198.18.0.0/15, the range for
 * tests), so that failed logins in one test never throttle (429) the next;
 * tests of the throttle send CF-Connecting-IP themselves.
 */
export function testClientIp(): string {
  const [a, b, c] = crypto.getRandomValues(new Uint8Array(3));
  return `198.${18 + (a! & 1)}.${b}.${c}`;
}

/** Sends a request through the real Worker (its default export) in workerd. */
export function api(path: string, request: ApiRequest = {}): Promise<Response> {
  const headers = new Headers(request.headers);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", testClientIp());
  if (request.as !== null) headers.set("Authorization", authHeader(request.as ?? "admin"));
  let body = request.body;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  return exports.default.fetch(new Request(`https://museum.test${path}`, { method: request.method ?? "GET", headers, body }));
}

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
  requestId?: string;
};

/** Asserts an RFC 9457 problem response and returns its body. */
export async function expectProblem(res: Response, status: number): Promise<Problem> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  const body = (await res.json()) as Problem;
  expect(body).toMatchObject({ status, title: expect.any(String), type: expect.any(String), detail: expect.any(String) });
  return body;
}

/** Asserts a 400 whose `errors` name exactly the given paths. */
export async function expectValidationError(res: Response, ...paths: string[]): Promise<Problem> {
  const body = await expectProblem(res, 400);
  expect(body.type).toBe("/problems/validation-error");
  expect(body.errors?.map((e) => e.path).sort()).toEqual([...paths].sort());
  return body;
}

/**
 * A snapshot of every application table, to prove a rejected write changed
 * nothing. `except` leaves out tables a refused request is meant to write
 * (a failed login is counted in `login_failures`).
 */
export async function dumpDatabase(options: { except?: string[] } = {}): Promise<string> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  const tables = results.map((row) => row.name).filter((name) => !options.except?.includes(name));
  const rows = await env.DB.batch(tables.map((name) => env.DB.prepare(`SELECT * FROM "${name}"`)));
  // Rows sorted as text: the snapshot does not depend on the order a table returns them in.
  return tables
    .map((name, i) => `${name}: ${JSON.stringify(rows[i]!.results.map((row) => JSON.stringify(row)).sort())}`)
    .join("\n");
}

/** A special event as the API returns it. */
export type EventJson = {
  eventId: string;
  name: string;
  location: string;
  eventDescription: string;
  dates: string[];
  price: number;
};

/**
 * Hands out calendar years no other test of the same file uses, so that a
 * list window holds only the events its test created. Each file passes its
 * own first year, which keeps files apart too should storage ever be shared.
 */
export function yearAllocator(firstYear: number): () => number {
  let next = firstYear;
  return () => next++;
}

let nameCounter = 0;
/** A name no other event of this file has. */
export function uniqueName(prefix = "Event"): string {
  nameCounter += 1;
  return `${prefix} ${nameCounter} ${crypto.randomUUID().slice(0, 8)}`;
}

/** A valid create body; fields can be overridden or removed (`undefined`). */
export function eventBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: uniqueName(),
    location: "Computer Room",
    eventDescription: "Captain Blackbeard shares his love of the C...language.",
    dates: ["2090-01-15"],
    price: 25,
    ...overrides,
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
}

/** Creates an event through the API (as admin) and returns it. */
export async function createEvent(overrides: Record<string, unknown> = {}): Promise<EventJson> {
  const res = await api("/v1.1/special-events", { method: "POST", json: eventBody(overrides) });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as EventJson;
}

/** The targets of an RFC 8288 `Link` header by rel. */
export function parseLink(header: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of header ? header.split(",") : []) {
    const match = /^\s*<([^>]*)>\s*;\s*rel="([^"]+)"\s*$/.exec(part);
    if (!match) throw new Error(`unparsable Link part: ${part}`);
    links[match[2]!] = match[1]!;
  }
  return links;
}

/** Every event of a list query, following `next` links page by page. */
export async function listAll(query: string, as: AccountKey = "admin"): Promise<EventJson[]> {
  const all: EventJson[] = [];
  let path: string | undefined = `/v1.1/special-events?${query}`;
  for (let pages = 0; path; pages++) {
    if (pages > 1000) throw new Error("too many pages");
    const res: Response = await api(path, { as });
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${await res.text()}`);
    all.push(...((await res.json()) as EventJson[]));
    path = parseLink(res.headers.get("Link")).next;
  }
  return all;
}

/** The UTF-8 bytes of `text` as a stream of `chunkBytes`-byte chunks: a request body without Content-Length. */
export function streamOf(text: string, chunkBytes: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
}

/** Basic credentials encoded as UTF-8 (btoa alone only takes Latin-1). */
export function basicUtf8(name: string, secret: string): string {
  const bytes = new TextEncoder().encode(`${name}:${secret}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/** Inserts an extra account straight into the database (for auth edge cases). */
export async function insertAccount(name: string, secret: string, role: AccountRole = "sales") {
  await env.DB.prepare(
    `INSERT INTO accounts (name, role, secret_sha256) VALUES (?1, ?2, ?3) ON CONFLICT (name) DO NOTHING`,
  )
    .bind(name, role, await sha256Hex(secret))
    .run();
}

/** Today's date in a time zone, computed independently of src/platform/dates. */
export function todayInZone(timeZone: string, at: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    .formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/**
 * The days a test file sells on: `freshDay()` is a day from `first` days
 * after today on that no other test of the file uses (give each file its own
 * `first`), `openDay(plan)` the same day opened 09:00–18:00 with `plan`
 * (limits, slots) by an exception.
 */
export function testDays(first: number) {
  const today = todayInZone(env.MUSEUM_TIMEZONE);
  let next = first;
  const freshDay = () => plusDays(today, next++);
  async function openDay(plan: Record<string, unknown> = {}): Promise<string> {
    const date = freshDay();
    const res = await api(`/v1.1/museum-hours/exceptions/${date}`, {
      method: "PUT",
      json: { closed: false, timeOpen: "09:00", timeClose: "18:00", ...plan },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return date;
  }
  return { today, freshDay, openDay };
}

/** `date` plus `days`, for YYYY-MM-DD dates in test code. */
export function plusDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The first date on or after `from` that falls on `weekday` (0 = Sunday). */
export function nextWeekday(from: string, weekday: number): string {
  let day = from;
  while (new Date(`${day}T12:00:00Z`).getUTCDay() !== weekday) day = plusDays(day, 1);
  return day;
}

/**
 * For a test file whose requests fail on purpose (injected D1 faults): the
 * error and warning lines they log are muted (logs.test.ts checks them), and
 * each test's faults are cleared after it.
 */
export function expectFailureLogs(): void {
  beforeEach(() => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterEach(() => {
    clearD1Faults();
    vi.restoreAllMocks();
  });
}

/** How many of `requests` answered each status (bodies discarded): for races of simultaneous requests. */
export async function statusCounts(requests: Promise<Response>[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const res of await Promise.all(requests)) {
    counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
    await res.body?.cancel();
  }
  return counts;
}
