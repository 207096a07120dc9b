import { createRoute, z } from "@hono/zod-openapi";
import { schemaBehindProblem } from "../http/errors";
import { createRouter, jsonContent, publicProblemResponses } from "../http/openapi";
import { ProblemError } from "../http/problem";
import { D1_RETRY_AFTER_SECONDS } from "../platform/d1-errors";
import { log } from "../platform/log";
import { EXPECTED_MIGRATIONS, pendingMigrations } from "../platform/migrations";
import { appliedMigrations } from "./queries";

const SchemaCheckSchema = z
  .object({
    status: z.enum(["ok", "behind"]),
    expected: z.string().openapi({ description: "The newest migration this code needs.", example: "0012_orders.sql" }),
    applied: z
      .string()
      .nullable()
      .openapi({ description: "The newest migration applied to the database; null when none is.", example: "0012_orders.sql" }),
    pending: z.array(z.string()).openapi({ description: "The migrations this code needs that are not applied, in order." }),
  })
  .openapi("HealthSchemaCheck");

// One member per check under `checks`, so that a new check adds a member
// without changing the others.
const HealthSchema = z
  .object({
    status: z.literal("ok"),
    checks: z.object({
      database: z.object({ status: z.literal("ok") }),
      schema: SchemaCheckSchema,
    }),
  })
  .openapi("Health");

/**
 * Served at the root (`/healthz`), outside the /v1.1 API, and listed in its
 * OpenAPI document with a server of its own (`/`).
 */
export const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "getHealth",
  summary: "Service health",
  description:
    "Public. Says whether the database answers and has every migration this code needs applied. " +
    "503 when it does not answer (`Retry-After`), or with `/problems/schema-behind` when migrations are missing " +
    "(the problem's `checks` member names them, as `checks` of a 200 would).",
  tags: ["Service"],
  security: [],
  servers: [{ url: "/", description: "The service's root, outside /v1.1." }],
  responses: {
    200: jsonContent(HealthSchema, "The service answers, and its database has every migration it needs."),
    ...publicProblemResponses(405, 500, 503),
  },
});

export const healthRouter = createRouter().openapi(healthRoute, async (c) => {
  let applied: string[];
  try {
    applied = await appliedMigrations(c.var.db);
  } catch (error) {
    log.error("health check failed", { requestId: c.var.requestId, error: String(error) });
    throw new ProblemError(503, {
      detail: "The database does not answer.",
      headers: { "Retry-After": String(D1_RETRY_AFTER_SECONDS) },
    });
  }
  c.header("Cache-Control", "no-store");
  const pending = pendingMigrations(applied);
  const schema = {
    status: pending.length === 0 ? "ok" : "behind",
    expected: EXPECTED_MIGRATIONS.at(-1)!,
    applied: applied.at(-1) ?? null,
    pending,
  } as const;
  const checks = { database: { status: "ok" }, schema } as const;
  if (pending.length > 0) {
    log.error("database schema behind the code", { requestId: c.var.requestId, pending });
    throw new ProblemError(503, { ...schemaBehindProblem(pending, { checks }), headers: { "Cache-Control": "no-store" } });
  }
  return c.json({ status: "ok", checks } as const, 200);
});
