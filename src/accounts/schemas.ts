import { z } from "@hono/zod-openapi";

export const ACCOUNT_ROLES = ["admin", "sales"] as const;

/** `admin` may do everything; `sales` may read, buy tickets and fetch ticket images. */
const AccountRoleSchema = z.enum(ACCOUNT_ROLES);
export type AccountRole = z.infer<typeof AccountRoleSchema>;
