import type { Principal } from "../../env";

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
 * - A failed login forgets every entry of that client in this isolate at
 *   once, so the throttle applies here without delay (valid credentials
 *   included).
 */
export const LOGIN_CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 1_000;

type Entry = { principal: Principal; expires: number };
const entries = new Map<string, Entry>();

const keyOf = (client: string, name: string, secretSha256: string) => `${client}\u0000${name}\u0000${secretSha256}`;

export function recallLogin(client: string, name: string, secretSha256: string, now = Date.now()): Principal | undefined {
  const key = keyOf(client, name, secretSha256);
  const entry = entries.get(key);
  if (!entry) return undefined;
  // Expired, or stored under a clock that has since gone back: look it up again.
  if (entry.expires <= now || entry.expires - LOGIN_CACHE_TTL_MS > now) {
    entries.delete(key);
    return undefined;
  }
  return entry.principal;
}

export function rememberLogin(client: string, name: string, secretSha256: string, principal: Principal, now = Date.now()): void {
  entries.set(keyOf(client, name, secretSha256), { principal, expires: now + LOGIN_CACHE_TTL_MS });
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
}

/** Forgets every remembered login of a client (after a failed login from it). */
export function forgetClientLogins(client: string): void {
  const prefix = `${client}\u0000`;
  for (const key of entries.keys()) if (key.startsWith(prefix)) entries.delete(key);
}

/** Forgets everything (tests). */
export function clearLoginCache(): void {
  entries.clear();
}
