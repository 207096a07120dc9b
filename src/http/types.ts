import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../env";

/** A handler typed by its OpenAPI route: validated input in, declared responses out. */
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;
