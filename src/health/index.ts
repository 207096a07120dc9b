import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, jsonContent, publicProblemResponses } from "../http/openapi";
import { ProblemError } from "../http/problem";
import { D1_RETRY_AFTER_SECONDS } from "../platform/d1-errors";
import { log } from "../platform/log";
import { pingDatabase } from "./queries";

const HealthSchema = z.object({ status: z.literal("ok"), database: z.literal("ok") }).openapi("Health");

/**
 * Served at the root (`/healthz`), outside the /v1.1 API, and listed in its
 * OpenAPI document with a server of its own (`/`).
 */
export const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "getHealth",
  summary: "Service health",
  description: "Public. Says whether the service and its database answer.",
  tags: ["Service"],
  security: [],
  servers: [{ url: "/", description: "The service's root, outside /v1.1." }],
  responses: {
    200: jsonContent(HealthSchema, "The service and its database answer."),
    ...publicProblemResponses(405, 500, 503),
  },
});

export const healthRouter = createRouter().openapi(healthRoute, async (c) => {
  try {
    await pingDatabase(c.var.db);
  } catch (error) {
    log.error("health check failed", { requestId: c.var.requestId, error: String(error) });
    throw new ProblemError(503, {
      detail: "The database does not answer.",
      headers: { "Retry-After": String(D1_RETRY_AFTER_SECONDS) },
    });
  }
  c.header("Cache-Control", "no-store");
  return c.json({ status: "ok", database: "ok" } as const, 200);
});
