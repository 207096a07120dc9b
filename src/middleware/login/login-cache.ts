import type { Principal } from "../../env";
import { TtlCache } from "../../platform/ttl-cache";

/**
 * This isolate's memory of logins it verified against D1 a moment ago, so a
 * client that sends the same credentials again skips the account lookup (a
 * D1 round trip, the largest part of an authenticated read's cost; see
 * docs/performance.md).
 *
 * - Only successes are remembered, under (client, user name, SHA-256 of the
 *   presented secret): a wrong password, an unknown user or another client
 *   never hits, and no secret is kept in memory.
 * - An entry lives LOGIN_CACHE_TTL_MS and is never extended, so a revoked
 *   account, or a client that another isolate has started to throttle, is
 *   refused within that time.
 * - A failed or throttled login forgets every entry of that client in this
 *   isolate at once, and a client this isolate has throttled neither uses
 *   nor gets entries until its window ends (src/middleware/login), so
 *   the throttle applies here without delay (valid credentials included).
 */
const LOGIN_CACHE_TTL_MS = 60_000;
const logins = new TtlCache<Principal>({ maxEntries: 1_000, ttlMs: LOGIN_CACHE_TTL_MS });

const keyOf = (client: string, name: string, secretSha256: string) => `${client}\u0000${name}\u0000${secretSha256}`;

export function recallLogin(client: string, name: string, secretSha256: string): Principal | undefined {
  return logins.get(keyOf(client, name, secretSha256));
}

export function rememberLogin(client: string, name: string, secretSha256: string, principal: Principal): void {
  logins.set(keyOf(client, name, secretSha256), principal);
}

/** Forgets every remembered login of a client (after a failed or throttled login from it). */
export function forgetClientLogins(client: string): void {
  const prefix = `${client}\u0000`;
  logins.deleteWhere((key) => key.startsWith(prefix));
}
