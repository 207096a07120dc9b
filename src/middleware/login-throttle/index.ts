import type { Context } from "hono";
import type { AppEnv } from "../../env";
import {
  findLoginWindowAtPrimary,
  loginFailurePolicy,
  recordLoginFailure,
  selectLoginWindow,
  type LoginWindow,
} from "../../accounts/login-failures";
import { ProblemError } from "../../http/problem";

/** One login attempt under the throttle, as the basic-auth middleware drives it. */
export type ThrottledLogin = {
  /** Reads the client's current window; goes into the account lookup's batch. */
  check: D1PreparedStatement;
  /** Throws the `429` when the check found the client over budget. */
  enforce(check: D1Result): void;
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

/** Starts a throttled login for a request (see `loginThrottle`). */
export type LoginThrottle = (c: Context<AppEnv>) => ThrottledLogin;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;
const MAX_KEY_LENGTH = 64;

/** The /64 network of an IPv6 address (`2001:db8:0:1::/64`), or null when it is not one. */
function ipv6Network(address: string): string | null {
  const text = address.split("%")[0]!.toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (mapped) return mapped[1]!;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const zeros = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (halves.length === 2 && zeros < 1) return null;
  const groups = [...head, ...Array<string>(zeros).fill("0"), ...tail];
  if (groups.length !== 8 || !groups.every((group) => HEX_GROUP.test(group))) return null;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * Who is logging in, for counting: the client's IPv4 address, or its IPv6
 * /64 (one subscriber usually holds a whole /64, so counting single IPv6
 * addresses would give an attacker 2^64 budgets). A request without the
 * header (only local tools; Cloudflare always sets it) counts as "unknown".
 */
export function clientKey(value: string | undefined): string {
  const address = value?.trim();
  if (!address) return "unknown";
  if (IPV4.test(address)) return address;
  if (address.includes(":")) return ipv6Network(address) ?? address.slice(0, MAX_KEY_LENGTH);
  return address.slice(0, MAX_KEY_LENGTH);
}

function tooManyFailedLogins(retryAfterMs: number): ProblemError {
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
 * travels in the account lookup's batch. Why D1 and not the Rate Limiting
 * binding: see docs/hardening.md.
 */
export const loginThrottle = (): LoginThrottle => {
  return (c) => {
    // Read per request: LOGIN_FAILURE_BUDGET and LOGIN_FAILURE_WINDOW_SECONDS (wrangler.toml).
    const policy = loginFailurePolicy(c.env);
    // Cloudflare sets CF-Connecting-IP on every request.
    const key = clientKey(c.req.header("CF-Connecting-IP"));
    const now = Date.now();
    const db = c.var.db;
    const overBudget = (window: LoginWindow | null | undefined, limit: number) =>
      window !== null && window !== undefined && window.failures > limit;
    let suspect = false;
    return {
      check: selectLoginWindow(db, key, policy, now),
      enforce(check) {
        const window = check.results[0] as LoginWindow | undefined;
        if (overBudget(window, policy.budget - 1)) throw tooManyFailedLogins(window!.retry_after_ms);
        suspect = window !== undefined;
      },
      async recordFailure() {
        const window = await recordLoginFailure(db, key, policy, now);
        if (overBudget(window, policy.budget)) throw tooManyFailedLogins(window.retry_after_ms);
      },
      async confirmSuccess() {
        if (!suspect) return;
        const window = await findLoginWindowAtPrimary(db, key, policy, Date.now());
        if (overBudget(window, policy.budget - 1)) throw tooManyFailedLogins(window!.retry_after_ms);
      },
    };
  };
};
