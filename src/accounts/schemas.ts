import { z } from "@hono/zod-openapi";

/** @public (used by the tools, which bundle this file) */
export const ACCOUNT_ROLES = ["admin", "sales", "gate"] as const;

/**
 * `admin` may do everything; `sales` may read, buy tickets, fetch ticket
 * images and read a ticket's status; `gate` may only admit tickets.
 */
const AccountRoleSchema = z.enum(ACCOUNT_ROLES);
export type AccountRole = z.infer<typeof AccountRoleSchema>;
