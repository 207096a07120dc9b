// Schema-valid bodies generated from the served document (./generated.ts),
// broken at one keyword each: a `pattern`, `propertyNames`, a `oneOf`
// branch's required or refused field, `dependentRequired`; and path and
// query parameters broken at their `pattern`. A JSON Schema validator
// confirms each body was valid before and is not after; the service must
// answer 400 naming the field.
import { beforeAll, describe, expect, it } from "vitest";
import type { Problem } from "../support/helpers";
import { breaking, loadServedDocument, mutations, operations, resolved, samples, send, target, validatorOf } from "./generated";

beforeAll(async () => {
  await loadServedDocument();
});

describe("a request that breaks one keyword of the served document", () => {
  it("is 400 naming the field: a schema-valid body broken at one keyword, a parameter broken at its pattern", async () => {
    const failures: string[] = [];
    // Bodies broken per keyword (a `oneOf` by its branches): a `oneOf`
    // mutation may leave a body that another branch takes (a held order's
    // `holdMinutes` taken out, with `email` there), but each `oneOf` must
    // be broken at least once.
    const broken = new Map<string, number>();
    let seed = 5000;
    for (const { method, path, operation, body: bodySchema } of operations()) {
      seed += 1;
      const cases: { keyword: string; fields: string[]; url: string; body?: unknown }[] = [];
      if (bodySchema) {
        const isValid = validatorOf(bodySchema);
        const bases = samples(bodySchema, seed, 8).filter(isValid);
        for (const mutation of mutations(bodySchema)) {
          const keyword = `${operation.operationId} ${mutation.keyword.split(":")[0]}`;
          broken.set(keyword, broken.get(keyword) ?? 0);
          let prepared: unknown;
          for (const base of bases) {
            const body = mutation.prepare(base);
            if (body !== undefined && isValid(body)) {
              prepared = body;
              break;
            }
          }
          if (prepared === undefined) {
            failures.push(`${operation.operationId}: no schema-valid body to break ${mutation.keyword}`);
            continue;
          }
          const body = mutation.mutate(prepared);
          if (isValid(body)) continue;
          broken.set(keyword, broken.get(keyword)! + 1);
          cases.push({ keyword: mutation.keyword, fields: mutation.fields(body), url: target(path), body });
        }
      }
      for (const parameter of (operation.parameters ?? []).filter((p) => p.in === "path" || p.in === "query")) {
        const pattern = resolved(parameter.schema).pattern;
        if (typeof pattern !== "string") continue;
        const bad = breaking(pattern);
        const field = `${parameter.in === "path" ? "path" : "query"}.${parameter.name}`;
        const url = parameter.in === "path" ? target(path, { [parameter.name]: bad }) : `${target(path)}?${new URLSearchParams({ [parameter.name]: bad })}`;
        broken.set(`${operation.operationId} ${parameter.in} parameter pattern`, 1);
        cases.push({ keyword: `${parameter.in} parameter pattern`, fields: [field], url, body: bodySchema ? {} : undefined });
      }
      for (const { keyword, fields, url, body } of cases) {
        const res = await send(method, url, body);
        const problem = res.status === 400 ? ((await res.json()) as Problem) : null;
        if (!problem?.errors?.some((error) => fields.includes(error.path))) {
          failures.push(`${operation.operationId} ${keyword}: ${res.status} ${JSON.stringify(problem?.errors)}, not naming ${fields.join(" or ")}, for ${method} ${url} ${JSON.stringify(body)?.slice(0, 300)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect([...broken].filter(([, count]) => count === 0).map(([keyword]) => keyword), "never broken").toEqual([]);
    const kinds = new Set([...broken.keys()].map((keyword) => keyword.split(" ")[1]));
    expect([...kinds].sort()).toEqual(["dependentRequired", "oneOf", "path", "pattern", "propertyNames", "query"]);
  }, 120_000);
});
