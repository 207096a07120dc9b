import { z } from "@hono/zod-openapi";

/** @public (used by the tools, which bundle this file) */
export const ACCOUNT_ROLES = ["admin", "sales", "box-office", "gate"] as const;

/**
 * `admin` may do everything; `sales` (web shops, kiosks) may read hours,
 * events and availability, buy tickets and orders, and read, fetch the image
 * of and cancel the tickets and orders it sold itself; `box-office` (staffed
 * tills) may do what `sales` may, on every ticket and order; `gate` may only
 * admit tickets. Each operation's roles: its `x-roles` (allowRoles).
 */
const AccountRoleSchema = z.enum(ACCOUNT_ROLES);
export type AccountRole = z.infer<typeof AccountRoleSchema>;
