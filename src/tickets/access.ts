// Whose tickets and orders an account may see (SECURITY.md, "Roles"): the one
// rule of every route that reads or cancels a ticket or an order.
import type { Principal } from "../env";

/**
 * The seller whose tickets and orders `principal` is limited to, or null for
 * every seller: admin and box-office see all of them, any other account
 * (a sales account) only what it sold itself. The reads take it into their
 * SQL, so another account's ticket is not found exactly as an unknown id is:
 * the same statements, the same round trips, the same 404.
 */
export function sellerScope(principal: Principal): string | null {
  return principal.role === "admin" || principal.role === "box-office" ? null : principal.name;
}
