import { timingSafeEqual } from "hono/utils/buffer";
import { auth } from "hono/utils/basic-auth";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { selectActiveAccountCredential } from "../../accounts/statements";
import { ProblemError } from "../../http/problem";
import type { LoginThrottle } from "../login-throttle";
import { authenticate } from "../login";

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
    await authenticate(c, next, {
      throttle: options.throttle,
      user: credentials.username,
      secret: credentials.password,
      lookup: (db) => selectActiveAccountCredential(db, credentials.username),
      async verify(account, presentedHash) {
        const matches = await timingSafeEqual(account?.secret_sha256 ?? NO_ACCOUNT_HASH, presentedHash);
        return account && matches ? { name: account.name, role: account.role } : null;
      },
      unauthorized: () => unauthorized("The user name or password is wrong."),
    });
  });
};
