// Closed query parameters (contract, "Errors": an unknown query parameter,
// or one given twice, is 400): on every operation of the served document,
// in the one validation hook, after authentication and roles; the service's
// own routes outside the API ignore a query string.
import { beforeAll, describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, expectValidationError } from "../support/helpers";

type Operation = { operationId: string; parameters?: { name: string; in: string }[]; responses: Record<string, { description: string }> };
type Document = { info: { description: string }; paths: Record<string, Record<string, Operation>> };

let doc: Document;
beforeAll(async () => {
  doc = (await (await api("/v1.1/openapi.json", { as: null })).json()) as Document;
});

/** Every operation of the API (not /healthz, the service's own), with its path's parameters filled in. */
function apiOperations() {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => operation.operationId !== "getHealth")
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        operation,
        target: path
          .replace(/\{(eventId|ticketId|orderId|webhookId)\}/, () => crypto.randomUUID())
          .replace("{categoryId}", "zz-any")
          .replace("{date}", "2090-01-01"),
      })),
  );
}

const query = (operation: Operation) => (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);

describe("an unknown query parameter", () => {
  it("is 400 naming it (query.limt) on every operation, and nothing is written", async () => {
    const before = await dumpDatabase({ except: ["login_failures"] });
    const operations = apiOperations();
    expect(operations.length).toBeGreaterThan(30);
    for (const { method, target, operation } of operations) {
      const res = await api(`/v1.1${target}?limt=5`, { method, json: method === "GET" || method === "DELETE" ? undefined : {} });
      const problem = await expectProblem(res, 400);
      expect(problem.errors, `${operation.operationId}`).toContainEqual({ path: "query.limt", message: "Unknown query parameter." });
    }
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
  });

  it("is named beside the parameters the operation knows, each once", async () => {
    const problem = await expectValidationError(await api("/v1.1/special-events?limt=5&limit=31&lim%74=6"), "query.limt", "query.limit");
    expect(problem.errors).toContainEqual({ path: "query.limt", message: "Unknown query parameter." });
  });

  it("whatever its name (__proto__, constructor, encoded, with spaces)", async () => {
    for (const [search, path] of [
      ["__proto__=1", "query.__proto__"],
      ["constructor=1", "query.constructor"],
      ["toString", "query.toString"],
      ["lim%74=5", "query.limt"],
      ["a+b=1", "query.a b"],
    ]) {
      const problem = await expectValidationError(await api(`/v1.1/museum-hours/schedule?${search}`), path!);
      expect(problem.errors).toEqual([{ path, message: "Unknown query parameter." }]);
    }
  });

  it("comes after authentication and roles: 401 without credentials, 403 for a role that may not", async () => {
    await expectProblem(await api("/v1.1/special-events?limt=5", { as: null }), 401);
    await expectProblem(await api("/v1.1/webhooks?limt=5", { as: "sales" }), 403);
  });

  it("leaves the known ones working", async () => {
    expect((await api("/v1.1/special-events?limit=5&page=1")).status).toBe(200);
    expect((await api("/v1.1/ticket-categories?includeRetired=true")).status).toBe(200);
    expect((await api("/v1.1/museum-hours/schedule")).status).toBe(200);
  });
});

describe("a query parameter given twice", () => {
  it("is named as repeated, not as missing (GET /tickets?confirmationCode=X&confirmationCode=X)", async () => {
    const code = "ticket-general-e5e5c6-dce78";
    const problem = await expectValidationError(await api(`/v1.1/tickets?confirmationCode=${code}&confirmationCode=${code}`), "query.confirmationCode");
    expect(problem.errors).toEqual([{ path: "query.confirmationCode", message: "Given 2 times: send it once." }]);
  });

  it("is 400 naming it for every query parameter of every operation", async () => {
    let checked = 0;
    for (const { method, target, operation } of apiOperations()) {
      for (const name of query(operation)) {
        const res = await api(`/v1.1${target}?${name}=1&${name}=1&${name}=2`, { method, json: method === "GET" || method === "DELETE" ? undefined : {} });
        const problem = await expectProblem(res, 400);
        expect(problem.errors, `${operation.operationId} ${name}`).toContainEqual({ path: `query.${name}`, message: "Given 3 times: send it once." });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});

describe("the document says the query parameters are closed", () => {
  it("in its description, and every operation of the API lists the 400 that says so", async () => {
    expect(doc.info.description).toContain("Each operation takes only the query parameters it lists: another one, or one given twice, is 400");
    for (const { operation } of apiOperations()) {
      expect(operation.responses["400"]?.description, operation.operationId).toContain("an unknown body field or query parameter, or a query parameter given twice");
    }
  });
});

describe("the service's own routes outside the API ignore a query string (a browser's or a monitor's cache-buster)", () => {
  it.each(["/", "/healthz", "/docs", "/v1.1/openapi.json"])("%s", async (path) => {
    const plain = await api(path, { as: null });
    const busted = await api(`${path}?_=1717171717&v=2&v=3`, { as: null });
    expect(busted.status).toBe(plain.status);
    expect(plain.status).toBe(200);
  });
});
