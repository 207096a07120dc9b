// What of the served document the typed client can call. openapi-fetch sends
// every path under the client's base URL (the document's `servers[0]`,
// /v1.1) and ignores a path's or an operation's own `servers`: `/healthz`,
// served at the root, would be typed as callable and then answer 404 at
// /v1.1/healthz. Such operations are left out of the client's `paths` (and
// so of `operations`); their schemas stay in `components`. Plain JavaScript
// over tools/lib only: the generator and the workerd tests both read it.
import { deref, HTTP_METHODS } from "../../../tools/lib/openapi-facts.mjs";

/** `doc` with only the operations a client of its `servers[0]` can reach; a path left with none is dropped. */
export function clientDocument(doc) {
  const paths = {};
  for (const [path, pathItem] of Object.entries(doc.paths ?? {})) {
    const elsewhere = HTTP_METHODS.filter((method) => pathItem[method] && (pathItem.servers ?? pathItem[method].servers) !== undefined);
    const kept = Object.fromEntries(Object.entries(pathItem).filter(([key]) => !elsewhere.includes(key)));
    if (HTTP_METHODS.some((method) => kept[method])) paths[path] = kept;
  }
  return { ...doc, paths };
}

/** Where the client README's problem table starts and ends; the lines between are `problemTable`'s. */
export const PROBLEM_TABLE_START = "<!-- problem types: written by `npm run client:generate` from openapi.json; do not edit -->";
export const PROBLEM_TABLE_END = "<!-- end of problem types -->";

/** More operations than this answering a type are counted, or named as every operation but a few. */
const NAMED_AT_MOST = 4;

/**
 * The problem types the client's operations answer, as a Markdown table: one
 * row per type and status, with the operations whose response of that
 * status names the type (`/problems/…` in its description).
 */
export function problemTable(doc) {
  const operations = Object.entries(clientDocument(doc).paths).flatMap(([path, pathItem]) =>
    HTTP_METHODS.filter((method) => pathItem[method]).map((method) => ({ name: `\`${method.toUpperCase()} ${path}\``, responses: pathItem[method].responses ?? {} })),
  );
  const rows = new Map();
  for (const { name, responses } of operations) {
    for (const [status, response] of Object.entries(responses)) {
      for (const type of new Set(deref(doc, response).description?.match(/\/problems\/[a-z-]+/g) ?? [])) {
        const key = `${status} ${type}`;
        if (!rows.has(key)) rows.set(key, { type, status, names: [] });
        rows.get(key).names.push(name);
      }
    }
  }
  const answeredBy = (names) => {
    if (names.length <= NAMED_AT_MOST) return names.join(", ");
    const others = operations.map((operation) => operation.name).filter((name) => !names.includes(name));
    if (others.length === 0) return "every operation";
    return others.length <= NAMED_AT_MOST ? `every operation but ${others.join(", ")}` : `${names.length} operations`;
  };
  const sorted = [...rows.values()].sort((a, b) => a.status.localeCompare(b.status) || a.type.localeCompare(b.type));
  return [
    "| `type` | `status` | answered by |",
    "|---|---|---|",
    ...sorted.map(({ type, status, names }) => `| \`${type}\` | ${status} | ${answeredBy(names)} |`),
  ].join("\n");
}

/** `readme` with the lines between the problem table's markers replaced by `problemTable(doc)`. */
export function withProblemTable(readme, doc) {
  const start = readme.indexOf(PROBLEM_TABLE_START);
  const end = readme.indexOf(PROBLEM_TABLE_END);
  if (start === -1 || end < start) throw new Error("the client README lacks the problem table's markers");
  return `${readme.slice(0, start + PROBLEM_TABLE_START.length)}\n${problemTable(doc)}\n${readme.slice(end)}`;
}
