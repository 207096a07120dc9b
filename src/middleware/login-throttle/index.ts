import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import type { AppEnv } from "../../env";
import { loginFailurePolicy } from "../../accounts/login-failures";
import { countLoginAttempt, forgiveLoginAttempt, type LoginWindow } from "../../accounts/statements";
import { ProblemError } from "../../http/problem";
import { Batch, type Db, runStep, type Step } from "../../platform/batch";
import { TtlCache } from "../../platform/ttl-cache";

/** One login attempt under the throttle, as the login flow (../login) drives it. */
export type ThrottledLogin = {
  /**
   * True while this isolate has answered the client `429` and its window has
   * not ended: its remembered logins must be neither used nor stored, so the
   * throttle is decided before the login memory.
   */
  throttledHere(): boolean;
  /**
   * Counts this attempt before its password is checked, in the account
   * lookup's batch; after the batch has run, `enforce` throws the `429` when
   * the attempt was over the budget (its password must not be checked).
   */
  count(batch: Batch): { enforce(): void };
  /** Takes the counted attempt back once its password proved correct (one round trip). */
  forgive(): Promise<void>;
};

/**
 * Reads a login's credential (`lookup`); under the throttle the attempt is
 * counted in the same batch (one round trip) and a client over its budget
 * gets the `429` here, before any secret is compared.
 */
export async function readCredential<T>(db: Db, lookup: Step<T>, login: ThrottledLogin | undefined): Promise<T> {
  if (!login) return runStep(lookup);
  const batch = new Batch(db);
  const attempt = login.count(batch);
  const credential = batch.add(lookup);
  await batch.run();
  attempt.enforce();
  return credential.value;
}

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
 * Failed-login throttling for the authentication middlewares, counted in D1 per
 * client (see `clientKey`). Once a client has had `budget` failed logins in a
 * window (which starts at its first counted attempt), every request with
 * credentials from it is answered `429` with `Retry-After` until the window
 * has passed, valid credentials included. Airtight under bursts: every
 * attempt is counted, and its count read, in one atomic statement before its
 * password is checked, and only an attempt within the budget is checked; a
 * correct password is then forgiven. So however many requests arrive at
 * once, at most `budget` passwords are being checked or have failed in a
 * window. The count travels in the account lookup's batch; a correct login
 * costs one more round trip (the forgiveness), and the login memory spares
 * repeated ones both. The isolate also remembers whom it answered `429`
 * (`throttledHere`), so the login flow can decide the throttle
 * before its memory of recent logins. Why D1 and not the Rate Limiting
 * binding: see docs/hardening.md.
 */
export const loginThrottle = (): LoginThrottle => {
  return (c, key) => {
    // LOGIN_FAILURE_BUDGET and LOGIN_FAILURE_WINDOW_SECONDS (wrangler.toml).
    const policy = loginFailurePolicy(c.var.config.settings);
    const db = c.var.db;
    // The window this attempt was counted in, once it has been (what `forgive` takes it back from).
    let window: LoginWindow | undefined;
    return {
      throttledHere() {
        const until = throttledClients.get(key);
        return until !== undefined && until > Date.now();
      },
      count(batch) {
        const [counting, reading] = countLoginAttempt(db, {
          clientKey: key,
          windowMs: policy.windowMs,
          nowMs: Date.now(),
          budget: policy.budget,
        });
        const counted = batch.add(counting);
        const read = batch.add(reading);
        return {
          enforce() {
            if (!counted.value) throw tooManyFailedLogins(key, read.value.retry_after_ms);
            window = read.value;
          },
        };
      },
      async forgive() {
        if (!window) return;
        const batch = new Batch(db);
        for (const step of forgiveLoginAttempt(db, { clientKey: key, windowStart: window.window_start })) batch.add(step);
        await batch.run();
      },
    };
  };
};
