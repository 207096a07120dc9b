import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { log } from "../../platform/log";

/**
 * The route pattern that answered (`/v1.1/special-events/:eventId`), never the
 * raw path: a path can carry anything a client typed. `null` when no operation
 * matched (a 404, a 405, a CORS preflight).
 */
function operationRoute(c: Context<AppEnv>): string | null {
  const method = c.req.method === "HEAD" ? "GET" : c.req.method;
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    if (routes[i]!.method === method) return routes[i]!.path;
  }
  return null;
}

/** A client's own X-Request-Id worth keeping: a short token, nothing a log reader could mistake. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * One structured log line per request, written once the response is known:
 * `{ requestId, method, route, status, durationMs, account }`, and
 * `clientRequestId` when the client sent an `X-Request-Id` of its own that
 * is a sane token (`requestId` is always ours). Nothing else from the
 * request's headers, query or body is logged, so neither credentials nor
 * buyer data can reach the logs this way. Runs right after the request-id
 * middleware, around everything else.
 *
 * `durationMs` is wall time as the Worker sees it: Workers' clocks advance
 * only across I/O, so pure CPU work shows as 0.
 */
export const accessLog = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const started = Date.now();
    const clientRequestId = c.req.header("X-Request-Id");
    try {
      await next();
    } finally {
      log.info("request", {
        requestId: c.var.requestId,
        method: c.req.method,
        route: operationRoute(c),
        status: c.res.status,
        durationMs: Date.now() - started,
        account: c.var.principal?.name ?? null,
        ...(clientRequestId !== undefined && CLIENT_REQUEST_ID.test(clientRequestId) ? { clientRequestId } : {}),
      });
    }
  });
