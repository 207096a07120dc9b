// What of the served document the typed client can call. openapi-fetch sends
// every path under the client's base URL (the document's `servers[0]`,
// /v1.1) and ignores a path's or an operation's own `servers`: `/healthz`,
// served at the root, would be typed as callable and then answer 404 at
// /v1.1/healthz. Such operations are left out of the client's `paths` (and
// so of `operations`); their schemas stay in `components`. Plain JavaScript
// over tools/lib only: the generator and the workerd tests both read it.
import { HTTP_METHODS } from "../../../tools/lib/openapi-facts.mjs";

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
