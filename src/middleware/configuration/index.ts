import { createMiddleware } from "hono/factory";
import { configurationOf } from "../../configuration";
import type { AppEnv } from "../../env";

/**
 * Puts the Worker's configuration on the context as `config`: parsed on the
 * isolate's first request, the same object for every later one. Handlers
 * read it there and hand services what they need; an operation that needs
 * the currency or a key set asks `need(c.var.config, …)` before it writes.
 */
export const configuration = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set("config", configurationOf(c.env));
    await next();
  });
