import { cors as honoCors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../env";

/** Request headers a browser client (a ticket kiosk) may send. */
const ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "X-D1-Bookmark"];
/** Response headers its script may read. */
const EXPOSE_HEADERS = [
  "X-Request-Id",
  "Location",
  "Link",
  "ETag",
  "Retry-After",
  "Idempotent-Replayed",
  "X-D1-Bookmark",
  "WWW-Authenticate",
];
const ALLOW_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
/** `Access-Control-Max-Age` of a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Parses `https://kiosk.example.org, https://shop.example.org` into a set of exact origins.
 * @internal (for tests)
 */
export function parseAllowedOrigins(value: string | undefined): Set<string> {
  return new Set(
    (value ?? "")
      .split(",")
      .map((origin) => origin.trim().replace(/\/+$/, ""))
      .filter((origin) => origin !== ""),
  );
}

/**
 * Cross-origin access for browser-based clients, off by default: only the
 * origins listed in `CORS_ALLOWED_ORIGINS` (exact `scheme://host[:port]`
 * matches; no wildcards) get CORS headers, and a preflight from one of them is
 * answered `204` before authentication (preflights carry no credentials).
 * Every other origin gets no CORS header at all, so the browser refuses the
 * response; its preflight goes on to the normal routing (405/404). Built on
 * hono/cors; the configuration is read per request, parsed once per value.
 */
export const cors = () => {
  let cached: { value: string | undefined; origins: Set<string>; handler: MiddlewareHandler } | undefined;

  return createMiddleware<AppEnv>(async (c, next) => {
    const value = c.var.config.settings.CORS_ALLOWED_ORIGINS;
    if (!cached || cached.value !== value) {
      const origins = parseAllowedOrigins(value);
      cached = {
        value,
        origins,
        handler: honoCors({
          origin: (origin) => (origins.has(origin) ? origin : null),
          allowMethods: ALLOW_METHODS,
          allowHeaders: ALLOW_HEADERS,
          exposeHeaders: EXPOSE_HEADERS,
          maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        }),
      };
    }
    if (cached.origins.size === 0) return next();
    const origin = c.req.header("Origin");
    if (origin === undefined || !cached.origins.has(origin)) {
      await next();
      // The answer depends on Origin once any origin is allowed.
      c.res.headers.append("Vary", "Origin");
      return;
    }
    return cached.handler(c, next);
  });
};
