import { createRoute, z } from "@hono/zod-openapi";
import { schemaBehindProblem } from "../http/errors";
import { createRouter, jsonContent, publicProblemResponses } from "../http/openapi";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { configurationProblems } from "../configuration";
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

const ConfigurationCheckSchema = z
  .object({
    status: z.enum(["ok", "incomplete"]),
    problems: z.array(z.string()).openapi({
      description: "What is missing or malformed, naming the setting or secret (never its value): tickets are not sold until it is set.",
      example: ["TICKET_SIGNING_KEY is not set: ticket QR codes cannot be signed."],
    }),
  })
  .openapi("HealthConfigurationCheck");

// One member per check under `checks`, so that a new check adds a member
// without changing the others.
const HealthSchema = z
  .object({
    status: z.literal("ok"),
    checks: z.object({
      database: z.object({ status: z.literal("ok") }),
      schema: SchemaCheckSchema,
      configuration: ConfigurationCheckSchema,
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
    "Public. Says whether the database answers, has every migration this code needs applied, and whether the " +
    "signing keys and money settings a sale needs are set. 503 when the database does not answer (`Retry-After`), " +
    "with `/problems/schema-behind` when migrations are missing, or with `/problems/not-configured` when a secret " +
    "or setting is (the problem's `checks` member says which, as `checks` of a 200 would).",
  tags: ["Service"],
  security: [],
  servers: [{ url: "/", description: "The service's root, outside /v1.1." }],
  responses: {
    200: jsonContent(HealthSchema, "The service answers, and its database has every migration it needs."),
    ...publicProblemResponses(405, 500, 503),
  },
});

export const healthRouter = createRouter({ ignoreQuery: true }).openapi(healthRoute, async (c) => {
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
  const problems = configurationProblems(c.var.config, new Date());
  const configuration = { status: problems.length === 0 ? "ok" : "incomplete", problems } as const;
  const checks = { database: { status: "ok" }, schema, configuration } as const;
  if (pending.length > 0) {
    log.error("database schema behind the code", { requestId: c.var.requestId, pending });
    throw new ProblemError(503, { ...schemaBehindProblem(pending, { checks }), headers: { "Cache-Control": "no-store" } });
  }
  if (problems.length > 0) {
    throw new ProblemError(503, {
      type: PROBLEM_TYPES.notConfigured,
      title: "Not configured",
      detail: `Tickets are not sold until this is set: ${problems.join(" ")}`,
      extensions: { checks },
      headers: { "Cache-Control": "no-store" },
    });
  }
  return c.json({ status: "ok", checks } as const, 200);
});
