import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";

/**
 * Headers every response gets unless its handler set the same header itself
 * (the handler knows better: /docs its CSP, the ticket image its caching).
 * The API answers JSON and PNG only, so nothing may load and nothing may
 * frame it; its responses are per-account and may carry buyer data, so no
 * cache keeps them.
 */
const DEFAULT_HEADERS: [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"],
  ["Cache-Control", "no-store"],
  ["Strict-Transport-Security", "max-age=31536000; includeSubDomains"],
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "no-referrer"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
];

/**
 * Security headers on every response the Worker builds, problem responses
 * included: the error handler has already run when they are added, so a 401,
 * 404 or 500 gets them like a 200. See docs/hardening.md ("Headers").
 */
export const securityHeaders = () => {
  const headers = DEFAULT_HEADERS;
  return createMiddleware<AppEnv>(async (c, next) => {
    await next();
    let response = c.res;
    const missing = headers.filter(([name]) => !response.headers.has(name));
    if (missing.length === 0) return;
    try {
      for (const [name, value] of missing) response.headers.set(name, value);
    } catch {
      // A response whose headers are immutable (one passed through from a
      // fetch) is copied first.
      response = new Response(response.body, response);
      for (const [name, value] of missing) response.headers.set(name, value);
      c.res = undefined;
      c.res = response;
    }
  });
};
