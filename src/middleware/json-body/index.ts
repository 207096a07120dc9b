import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../../env";
import { ProblemError } from "../../http/problem";

/**
 * `application/json`, with a charset parameter (if any) of `utf-8`: JSON
 * between systems is UTF-8 (RFC 8259, section 8.1), and a body declared in
 * another charset would be read as UTF-8 regardless. A parameter split by a
 * `;` inside quotes is read as malformed, which refuses it too.
 */
function isUtf8Json(contentType: string): boolean {
  const [mediaType = "", ...parameters] = contentType.split(";");
  if (mediaType.trim().toLowerCase() !== "application/json") return false;
  return parameters.every((parameter) => {
    const [name = "", value = ""] = parameter.split(/=(.*)/s).map((part) => part.trim());
    if (name.toLowerCase() !== "charset") return true;
    const unquoted = /^"(.*)"$/s.exec(value)?.[1] ?? value;
    return unquoted.toLowerCase() === "utf-8";
  });
}
/** Methods whose requests carry a body that must be JSON. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/**
 * Refuses (`415`) a request body that is not declared `application/json` in
 * UTF-8.
 * Without it the validator would read a non-JSON body as `{}` and report
 * missing fields, which hides the real mistake.
 */
export const jsonBody = () => {
  return createMiddleware<AppEnv>(async (c, next) => {
    // Only a request that reaches an operation has a body worth checking: for
    // an unknown path (404) or a method the path does not have (405) the
    // media type is beside the point, and a 415 would hide the real mistake.
    // Middleware are registered for every method ("ALL"); an operation only
    // for its own.
    const reachesOperation = matchedRoutes(c).some((route) => route.method === c.req.method);
    // No body at all is no media type to refuse: an operation whose body is
    // optional (a confirmation) takes it, the others answer 400 for what is missing.
    const noBody =
      c.req.header("content-type") === undefined && (c.req.raw.body === null || c.req.header("content-length") === "0");
    if (
      reachesOperation &&
      BODY_METHODS.has(c.req.method) &&
      !noBody &&
      !isUtf8Json(c.req.header("content-type") ?? "")
    ) {
      throw new ProblemError(415, {
        detail: "The request body must be JSON in UTF-8, sent with Content-Type: application/json (a charset, if named, must be utf-8).",
        headers: { "Accept-Post": "application/json", "Accept-Patch": "application/json" },
      });
    }
    await next();
  });
};
