import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import type { AccountRole } from "../../accounts/schemas";
import { ProblemError } from "../../http/problem";

/**
 * Lets the request through only when the authenticated account has one of
 * `roles`; otherwise `403`. Runs after `basicAuth`.
 */
const requireRole = (...roles: AccountRole[]) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!roles.includes(c.var.principal.role)) {
      throw new ProblemError(403, {
        detail: `This operation needs the ${roles.join(" or ")} role; account '${c.var.principal.name}' has '${c.var.principal.role}'.`,
      });
    }
    await next();
  });

/**
 * The part of a `createRoute` config that says who may call an operation:
 * the role check as route middleware (it runs before validation), and the
 * same roles in the OpenAPI document as the operation's `x-roles`.
 * Every /v1.1 operation declares its roles this way.
 */
export function allowRoles<const R extends AccountRole[]>(...roles: R) {
  return { middleware: requireRole(...roles), "x-roles": roles };
}
