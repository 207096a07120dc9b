// Every operation as every role: the roles an operation declares (`x-roles`
// in the served OpenAPI document), what the Worker does for each role, and
// the table of docs/hardening.md ("Roles: who may call what, and whose
// tickets") must say the same.
import { describe, expect, it } from "vitest";
import { ACCOUNT_ROLES, type AccountRole } from "../../src/accounts/schemas";
import { ACCOUNTS, type AccountKey, api, expectProblem } from "../support/helpers";

const HARDENING = Object.values(
  import.meta.glob<string>("../../docs/hardening.md", { query: "?raw", import: "default", eager: true }),
)[0]!;

/** The test account of each role (test/support/helpers.ts). */
const ACCOUNT_OF: Record<AccountRole, AccountKey> = { admin: "admin", sales: "sales", "box-office": "boxOffice", gate: "gate" };

/**
 * The operations on which a sales account sees only its own tickets and
 * orders (test/accounts/seller-scope.test.ts; a hold's confirmation and
 * extension: test/sales/holds.test.ts).
 */
const SALES_OWN_ONLY = [
  "GET /tickets/{ticketId}",
  "GET /tickets/{ticketId}/qr",
  "POST /tickets/{ticketId}/cancellation",
  "GET /orders/{orderId}",
  "POST /orders/{orderId}/cancellation",
  "POST /orders/{orderId}/confirmation",
  "POST /orders/{orderId}/hold",
  "GET /tickets",
  "GET /orders",
  "GET /cancellations",
];

type Operation = { key: string; method: string; path: string; roles: string[] | undefined; isPublic: boolean };

async function servedOperations(): Promise<Operation[]> {
  const res = await api("/v1.1/openapi.json", { as: null });
  expect(res.status).toBe(200);
  const doc = (await res.json()) as {
    paths: Record<string, Record<string, { "x-roles"?: string[]; security?: unknown[] }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => ["get", "put", "post", "patch", "delete"].includes(method))
      .map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        roles: operation["x-roles"],
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
      })),
  );
}

/** The role table of docs/hardening.md: operation → the cell of each role ("yes", "own" or "—"). */
function documentedRoles(): Map<string, Record<string, string>> {
  const section = HARDENING.split("## Roles: who may call what, and whose tickets")[1]?.split("\n## ")[0];
  expect(section, "the roles section of docs/hardening.md").toBeDefined();
  const lines = section!.split("\n").filter((line) => line.startsWith("|"));
  const header = lines[0]!.split("|").slice(2, -1).map((cell) => cell.trim());
  expect([...header].sort()).toEqual([...ACCOUNT_ROLES].sort());
  const table = new Map<string, Record<string, string>>();
  for (const line of lines.slice(2)) {
    const [operation, ...cells] = line.split("|").slice(1, -1).map((cell) => cell.trim());
    const key = /^`(.+)`$/.exec(operation!)?.[1];
    expect(key, line).toBeDefined();
    expect(table.has(key!), `${key} twice in the table`).toBe(false);
    table.set(key!, Object.fromEntries(header.map((role, i) => [role, cells[i]!])));
  }
  return table;
}

/** A request to the operation that passes authentication: a well-formed id or date in the path, an empty JSON body. */
function call(operation: Operation, as: AccountKey): Promise<Response> {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "date" ? "2099-01-01" : crypto.randomUUID()));
  const hasBody = ["POST", "PUT", "PATCH"].includes(operation.method);
  return api(`/v1.1${path}`, { method: operation.method, as, ...(hasBody ? { json: {} } : {}) });
}

describe("the role matrix", () => {
  it("every operation behind credentials declares its roles, from the account roles only", async () => {
    const operations = await servedOperations();
    expect(operations.length).toBeGreaterThan(20);
    for (const operation of operations) {
      if (operation.isPublic) {
        expect(operation.roles, operation.key).toBeUndefined();
        continue;
      }
      expect(operation.roles, `${operation.key} has no x-roles`).toBeDefined();
      expect(operation.roles!.length, operation.key).toBeGreaterThan(0);
      for (const role of operation.roles!) expect(ACCOUNT_ROLES, operation.key).toContain(role);
      expect(operation.roles, `${operation.key}: admin may do everything`).toContain("admin");
    }
  });

  it("box-office may call every operation sales may, and sales nothing box-office may not", async () => {
    for (const { key, roles } of await servedOperations()) {
      if (roles === undefined) continue;
      expect(roles.includes("box-office"), key).toBe(roles.includes("sales"));
    }
  });

  it("docs/hardening.md lists every operation with the roles of its x-roles, and 'own' exactly where sales is scoped", async () => {
    const table = documentedRoles();
    const operations = (await servedOperations()).filter((operation) => !operation.isPublic);
    expect([...table.keys()].sort()).toEqual(operations.map((operation) => operation.key).sort());
    for (const operation of operations) {
      const cells = table.get(operation.key)!;
      for (const role of ACCOUNT_ROLES) {
        expect(["yes", "own", "—"], `${operation.key}, ${role}: ${cells[role]}`).toContain(cells[role]);
        expect(cells[role] !== "—", `${operation.key}, ${role}`).toBe(operation.roles!.includes(role));
      }
    }
    const ownOnly = [...table].filter(([, cells]) => Object.values(cells).includes("own"));
    expect(ownOnly.map(([key]) => key).sort()).toEqual([...SALES_OWN_ONLY].sort());
    for (const [key, cells] of ownOnly) expect(cells, key).toMatchObject({ admin: "yes", "box-office": "yes", sales: "own" });
  });

  it("each role gets exactly 403 on the operations it is not listed for, and never 401 or 403 on the others", { timeout: 60_000 }, async () => {
    const operations = (await servedOperations()).filter((operation) => !operation.isPublic);
    for (const operation of operations) {
      for (const role of ACCOUNT_ROLES) {
        const res = await call(operation, ACCOUNT_OF[role]);
        const label = `${operation.key} as ${role}`;
        if (operation.roles!.includes(role)) {
          expect([401, 403], `${label}: ${res.status}`).not.toContain(res.status);
          await res.body?.cancel();
        } else {
          const problem = await expectProblem(res, 403);
          expect(problem.detail, label).toContain(`'${ACCOUNTS[ACCOUNT_OF[role]].name}' has '${role}'`);
        }
      }
    }
  });
});
