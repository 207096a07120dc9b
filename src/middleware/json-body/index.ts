import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../../env";
import { ProblemError } from "../../http/problem";

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
/** Methods whose requests carry a body that must be JSON. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/**
 * Refuses (`415`) a request body that is not declared `application/json`.
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
    if (
      reachesOperation &&
      BODY_METHODS.has(c.req.method) &&
      !JSON_MEDIA_TYPE.test(c.req.header("content-type") ?? "")
    ) {
      throw new ProblemError(415, {
        detail: "The request body must be JSON, sent with Content-Type: application/json.",
        headers: { "Accept-Post": "application/json", "Accept-Patch": "application/json" },
      });
    }
    await next();
  });
};
