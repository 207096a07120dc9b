import type { Context, Next } from "hono";
import type { AppEnv, Principal } from "../../env";
import type { ProblemError } from "../../http/problem";
import type { Db, Step } from "../../platform/batch";
import { sha256Hex } from "../../platform/crypto";
import { clientKey, type LoginThrottle, readCredential } from "../login-throttle";
import { forgetClientLogins, recallLogin, rememberLogin } from "./login-cache";

/** What an authentication middleware hands `authenticate`: how its credential is found and checked. */
export type Login<Row> = {
  /** Failed-login throttling (see the login-throttle middleware). Off when not given. */
  throttle?: LoginThrottle;
  /** Who logs in, as the login memory keys it with the secret's hash (an account name, say). */
  user: string;
  /** The presented secret; only its SHA-256 is kept. */
  secret: string;
  /** The credential's row, read in one batch with the throttle's count; `null` when there is none. */
  lookup(db: Db, secretSha256: string): Step<Row | null>;
  /** The principal when `row` matches the presented secret, else `null`. */
  verify(row: Row | null, secretSha256: string): Promise<Principal | null>;
  /** The `401` for a credential that does not match. */
  unauthorized(): ProblemError;
};

/**
 * The one login flow of the authentication middlewares: the login memory,
 * the credential read under the throttle, the check, and the forgiveness of
 * a correct login. Sets `principal` and calls `next`.
 */
export async function authenticate<Row>(c: Context<AppEnv>, next: Next, login: Login<Row>): Promise<void> {
  // Cloudflare sets CF-Connecting-IP on every request (docs/hardening.md: only behind Cloudflare).
  const client = clientKey(c.req.header("CF-Connecting-IP"));
  const attempt = login.throttle?.(c, client);
  const secretSha256 = await sha256Hex(login.secret);
  // The same credentials from the same client, verified in this isolate
  // within the last minute: no D1 round trip (see ./login-cache.ts). The
  // throttle is decided first: a client this isolate has answered 429 goes
  // to D1 until its window ends.
  const remembered = attempt?.throttledHere() ? undefined : recallLogin(client, login.user, secretSha256);
  if (remembered) {
    c.set("principal", remembered);
    await next();
    return;
  }
  let principal: Principal;
  try {
    const row = await readCredential(c.var.db, login.lookup(c.var.db, secretSha256), attempt);
    const verified = await login.verify(row, secretSha256);
    // A failure stays counted; a success is not a failed login.
    if (!verified) throw login.unauthorized();
    await attempt?.forgive();
    principal = verified;
  } catch (error) {
    // A failed or throttled login forgets the client's remembered logins,
    // so the throttle applies in this isolate at once.
    forgetClientLogins(client);
    throw error;
  }
  // A concurrent request may have had this client throttled meanwhile.
  if (!attempt?.throttledHere()) rememberLogin(client, login.user, secretSha256, principal);
  c.set("principal", principal);
  await next();
}
