import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, jsonContent } from "../http/openapi";
import { ProblemError } from "../http/problem";
import { pingDatabase } from "./queries";

const HealthSchema = z.object({ status: z.literal("ok"), database: z.literal("ok") });

const health = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "getHealth",
  summary: "Service health",
  description: "Public. Says whether the service and its database answer.",
  tags: ["Service"],
  security: [],
  responses: {
    200: jsonContent(HealthSchema, "The service and its database answer."),
    503: { description: "The database does not answer." },
  },
});

export const healthRouter = createRouter().openapi(health, async (c) => {
  try {
    await pingDatabase(c.var.db);
  } catch (error) {
    console.error(JSON.stringify({ level: "error", requestId: c.var.requestId, message: "health check failed", error: String(error) }));
    throw new ProblemError(503, {
      detail: "The database does not answer.",
      headers: { "Retry-After": "5" },
    });
  }
  c.header("Cache-Control", "no-store");
  return c.json({ status: "ok", database: "ok" } as const, 200);
});
