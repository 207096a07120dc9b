import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { sha256Hex } from "../src/lib/crypto";

/** Test-only accounts; their secrets exist nowhere but in this file. */
export const ACCOUNTS = {
  admin: { name: "test-admin", secret: "admin-secret-for-tests-only-0123456789", role: "admin" },
  sales: { name: "test-sales", secret: "sales-secret-for-tests-only-0123456789", role: "sales" },
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

/** Sends a request through the real Worker (its default export) in workerd. */
export function api(path: string, request: ApiRequest = {}): Promise<Response> {
  const headers = new Headers(request.headers);
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

/** A snapshot of every application table, to prove a rejected write changed nothing. */
export async function dumpDatabase(): Promise<string> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  const parts: string[] = [];
  for (const { name } of tables) {
    const { results } = await env.DB.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).all();
    parts.push(`${name}: ${JSON.stringify(results)}`);
  }
  return parts.join("\n");
}
