import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import type { AppEnv } from "../../env";
import { loginFailurePolicy } from "../../accounts/login-failures";
import {
  countLoginFailure,
  type LoginWindow,
  selectLoginWindow,
  selectLoginWindowAtPrimary,
} from "../../accounts/statements";
import { ProblemError } from "../../http/problem";
import { runStep, type Step } from "../../platform/batch";
import { settingsOf } from "../../settings";
import { TtlCache } from "../../platform/ttl-cache";

/** One login attempt under the throttle, as the basic-auth middleware drives it. */
export type ThrottledLogin = {
  /**
   * True while this isolate has answered the client `429` and its window has
   * not ended: its remembered logins must be neither used nor stored, so the
   * throttle is decided before the login memory.
   */
  throttledHere(): boolean;
  /** Reads the client's current window; goes into the account lookup's batch. */
  check: Step<LoginWindow | null>;
  /** Throws the `429` when the check found the client over budget. */
  enforce(window: LoginWindow | null): void;
  /**
   * Counts a failed login of this client, atomically with reading the count:
   * throws the `429` when this failure is past the budget (the caller answers
   * `401` otherwise).
   */
  recordFailure(): Promise<void>;
  /**
   * Before a correct password is accepted: when the check saw failures of
   * this client in its window (a burst may be under way), reads the window
   * again and throws the `429` if the budget is spent by now. Free otherwise.
   */
  confirmSuccess(): Promise<void>;
};

/** Starts a throttled login for a request from `client` (a `clientKey`; see `loginThrottle`). */
export type LoginThrottle = (c: Context<AppEnv>, client: string) => ThrottledLogin;

const MAX_KEY_LENGTH = 64;

/**
 * Who is logging in, for counting: the client's IPv4 address, or its IPv6
 * /64 (one subscriber usually holds a whole /64, so counting single IPv6
 * addresses would give an attacker 2^64 budgets); an IPv4-mapped IPv6
 * address counts as its IPv4 address. A request without the header (only
 * local tools; Cloudflare always sets it) counts as "unknown".
 */
export function clientKey(value: string | undefined): string {
  const address = value?.trim();
  if (!address) return "unknown";
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address).toString();
  if (ipaddr.IPv6.isValid(address)) {
    const ipv6 = ipaddr.IPv6.parse(address);
    if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString();
    return `${new ipaddr.IPv6([...ipv6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
  }
  return address.slice(0, MAX_KEY_LENGTH);
}

// The clients this isolate answered 429, with the end of their window (Unix
// ms). Bounded: a client pushed out early had its remembered logins
// forgotten when it was throttled, so its next login still goes to D1.
const MAX_WINDOW_MS = 86_400_000;
const throttledClients = new TtlCache<number>({ maxEntries: 10_000, ttlMs: MAX_WINDOW_MS });

/** The `429` for a throttled client; this isolate remembers the client as throttled until its window ends. */
function tooManyFailedLogins(client: string, retryAfterMs: number): ProblemError {
  throttledClients.set(client, Date.now() + retryAfterMs);
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ProblemError(429, {
    detail: `Too many failed logins from this client; retry in ${seconds} second${seconds === 1 ? "" : "s"}.`,
    headers: { "Retry-After": String(seconds) },
  });
}

/**
 * Failed-login throttling for the basic-auth middleware, counted in D1 per
 * client (see `clientKey`). Once a client has had `budget` failed logins in a
 * window (which starts at its first failure), every request with credentials
 * from it is answered `429` with `Retry-After` until the window has passed,
 * valid credentials included. Airtight under bursts: each failure is counted
 * and its count read in one atomic statement, and only a failure within the
 * budget gets its `401` verdict; a correct password from a client with
 * failures in its window is accepted only after a fresh read shows the
 * budget not spent. A client without failures pays only the check, which
 * travels in the account lookup's batch. The isolate also remembers whom it
 * answered `429` (`throttledHere`), so the basic-auth middleware can decide
 * the throttle before its memory of recent logins. Why D1 and not the Rate
 * Limiting binding: see docs/hardening.md.
 */
export const loginThrottle = (): LoginThrottle => {
  return (c, key) => {
    // LOGIN_FAILURE_BUDGET and LOGIN_FAILURE_WINDOW_SECONDS (wrangler.toml).
    const policy = loginFailurePolicy(settingsOf(c.env));
    const now = Date.now();
    const db = c.var.db;
    const scope = (nowMs: number) => ({ clientKey: key, windowMs: policy.windowMs, nowMs });
    const overBudget = (window: LoginWindow | null | undefined, limit: number) =>
      window !== null && window !== undefined && window.failures > limit;
    let suspect = false;
    return {
      throttledHere() {
        const until = throttledClients.get(key);
        return until !== undefined && until > Date.now();
      },
      check: selectLoginWindow(db, scope(now)),
      enforce(window) {
        if (overBudget(window, policy.budget - 1)) throw tooManyFailedLogins(key, window!.retry_after_ms);
        suspect = window !== null;
      },
      async recordFailure() {
        const window = await runStep(countLoginFailure(db, scope(now)));
        if (overBudget(window, policy.budget)) throw tooManyFailedLogins(key, window.retry_after_ms);
      },
      async confirmSuccess() {
        if (!suspect) return;
        const window = await runStep(selectLoginWindowAtPrimary(db, scope(Date.now())));
        if (overBudget(window, policy.budget - 1)) throw tooManyFailedLogins(key, window!.retry_after_ms);
      },
    };
  };
};
