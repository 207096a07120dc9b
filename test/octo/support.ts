// What the OCTO tests share: reseller keys in the test database, calls to
// /octo with one, OCTO's error shape, availability ids, a reservation.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { sha256Hex } from "../../src/platform/crypto";
import { api, insertAccount } from "../support/helpers";

/** Reseller keys made for these tests: a reseller, a second reseller, a revoked key and a gate's. */
export const KEYS = {
  reseller: { id: "t-reseller", account: "test-reseller", key: "octo-key-of-the-test-reseller-000001", role: "sales" },
  other: { id: "t-other", account: "test-reseller-2", key: "octo-key-of-another-test-reseller-02", role: "sales" },
  revoked: { id: "t-revoked", account: "test-reseller", key: "octo-key-revoked-for-the-tests-00003", role: "sales" },
  gate: { id: "t-gate", account: "test-octo-gate", key: "octo-key-of-a-gate-account-000000004", role: "gate" },
} as const;

/** Writes the accounts and keys of KEYS (once a test file: call it in beforeAll). */
export async function insertKeys(): Promise<void> {
  for (const k of Object.values(KEYS)) {
    await insertAccount(k.account, `${k.account}-basic-secret-0123456789`, k.role);
    await env.DB.prepare("INSERT INTO api_keys (key_id, account_name, key_sha256, revoked_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")
      .bind(k.id, k.account, await sha256Hex(k.key), k.id === "t-revoked" ? "2026-01-01T00:00:00.000Z" : null)
      .run();
  }
}

export type Key = keyof typeof KEYS;

export function octo(path: string, options: { method?: string; json?: unknown; key?: Key | null; headers?: Record<string, string> } = {}) {
  const key = options.key === undefined ? "reseller" : options.key;
  return api(`/octo${path}`, {
    as: null,
    method: options.method ?? (options.json === undefined ? "GET" : "POST"),
    ...(options.json === undefined ? {} : { json: options.json }),
    headers: { ...(key ? { Authorization: `Bearer ${KEYS[key].key}` } : {}), ...options.headers },
  });
}

export async function ok<T>(res: Response): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

export async function expectOctoError(res: Response, status: number, error: string): Promise<Record<string, string>> {
  expect(res.status, await res.clone().text()).toBe(status);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  const body = (await res.json()) as Record<string, string>;
  expect(body.error).toBe(error);
  expect(body.errorMessage).toEqual(expect.any(String));
  return body;
}

export type Availability = { id: string; status: string; vacancies: number | null; capacity: number | null; available: boolean; allDay: boolean };
type UnitItem = { uuid: string; unitId: string; status: string; ticket: { deliveryOptions: { deliveryFormat: string; deliveryValue: string }[] } };
export type Booking = {
  id: string;
  uuid: string;
  status: string;
  supplierReference: string;
  resellerReference: string | null;
  availabilityId: string;
  utcExpiresAt: string | null;
  contact: { emailAddress: string | null; firstName: string | null };
  cancellation: { refund: string; reason: string | null } | null;
  unitItems: UnitItem[];
};

/** The availability id of `date` `time` in the museum's zone (America/New_York). */
export function availabilityId(date: string, time: string): string {
  const offset = new Intl.DateTimeFormat("en-US", { timeZone: env.MUSEUM_TIMEZONE, timeZoneName: "longOffset" })
    .formatToParts(new Date(`${date}T${time}:00Z`))
    .find((p) => p.type === "timeZoneName")!
    .value.replace("GMT", "");
  return `${date}T${time}:00${offset || "+00:00"}`;
}

export function reserve(date: string, time: string, units: string[], extra: Record<string, unknown> = {}, key: Key = "reseller") {
  return octo("/bookings", {
    key,
    json: { productId: "general", optionId: "DEFAULT", availabilityId: availabilityId(date, time), unitItems: units.map((unitId) => ({ unitId })), ...extra },
  });
}

