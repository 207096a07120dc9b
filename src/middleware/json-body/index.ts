import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { ProblemError } from "../../lib/problem";

export type JsonBodyOptions = {
  /** Methods whose requests carry a body that must be JSON. */
  methods?: string[];
};

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Refuses (`415`) a request body that is not declared `application/json`.
 * Without it the validator would read a non-JSON body as `{}` and report
 * missing fields, which hides the real mistake.
 */
export const jsonBody = (options: JsonBodyOptions = {}) => {
  const methods = new Set(options.methods ?? ["POST", "PUT", "PATCH"]);
  return createMiddleware<AppEnv>(async (c, next) => {
    if (methods.has(c.req.method) && !JSON_MEDIA_TYPE.test(c.req.header("content-type") ?? "")) {
      throw new ProblemError(415, {
        detail: "The request body must be JSON, sent with Content-Type: application/json.",
        headers: { "Accept-Post": "application/json", "Accept-Patch": "application/json" },
      });
    }
    await next();
  });
};
