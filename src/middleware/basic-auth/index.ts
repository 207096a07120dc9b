import { timingSafeEqual } from "hono/utils/buffer";
import { auth } from "hono/utils/basic-auth";
import { createMiddleware } from "hono/factory";
import type { AppEnv, Principal } from "../../env";
import { selectActiveAccountCredential } from "../../accounts/statements";
import { sha256Hex } from "../../platform/crypto";
import { ProblemError } from "../../http/problem";
import { clientKey, type LoginThrottle, readCredential } from "../login-throttle";
import { forgetClientLogins, recallLogin, rememberLogin } from "./login-cache";

export type BasicAuthOptions = {
  /** The realm announced in `WWW-Authenticate`. */
  realm: string;
  /**
   * Failed-login throttling (see the login-throttle middleware): every login
   * is counted before its password is checked, a client over its budget gets
   * `429` instead of a check, and a correct login is forgiven. Off when not given.
   */
  throttle?: LoginThrottle;
};

// Compared against when the user name is unknown, so that a wrong name costs
// the same work as a wrong password (no user-name oracle by timing).
const NO_ACCOUNT_HASH = "0".repeat(64);

/**
 * HTTP Basic authentication against the `accounts` table. Secrets are
 * high-entropy random tokens stored as SHA-256 hashes, so one hash per request
 * is enough (no PBKDF2-class cost on the hot path). Sets `principal`.
 */
export const basicAuth = (options: BasicAuthOptions) => {
  const challenge = `Basic realm="${options.realm}", charset="UTF-8"`;
  const unauthorized = (detail: string) =>
    new ProblemError(401, { detail, headers: { "WWW-Authenticate": challenge } });

  return createMiddleware<AppEnv>(async (c, next) => {
    const credentials = auth(c.req.raw);
    if (!credentials) {
      throw unauthorized("This operation needs HTTP Basic credentials.");
    }
    // Cloudflare sets CF-Connecting-IP on every request (docs/hardening.md: only behind Cloudflare).
    const client = clientKey(c.req.header("CF-Connecting-IP"));
    const login = options.throttle?.(c, client);
    const presentedHash = await sha256Hex(credentials.password);
    // The same credentials from the same client, verified in this isolate
    // within the last minute: no D1 round trip (see ./login-cache.ts). The
    // throttle is decided first: a client this isolate has answered 429 goes
    // to D1 until its window ends.
    const remembered = login?.throttledHere() ? undefined : recallLogin(client, credentials.username, presentedHash);
    if (remembered) {
      c.set("principal", remembered);
      await next();
      return;
    }
    let principal: Principal;
    try {
      const account = await readCredential(c.var.db, selectActiveAccountCredential(c.var.db, credentials.username), login);
      const storedHash = account?.secret_sha256 ?? NO_ACCOUNT_HASH;
      const matches = await timingSafeEqual(storedHash, presentedHash);
      // A failure stays counted; a success is not a failed login.
      if (!account || !matches) throw unauthorized("The user name or password is wrong.");
      await login?.forgive();
      principal = { name: account.name, role: account.role };
    } catch (error) {
      // A failed or throttled login forgets the client's remembered logins,
      // so the throttle applies in this isolate at once.
      forgetClientLogins(client);
      throw error;
    }
    // A concurrent request may have had this client throttled meanwhile.
    if (!login?.throttledHere()) rememberLogin(client, credentials.username, presentedHash, principal);
    c.set("principal", principal);
    await next();
  });
};
