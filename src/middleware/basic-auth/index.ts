import { timingSafeEqual } from "hono/utils/buffer";
import { auth } from "hono/utils/basic-auth";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { findActiveAccountCredential } from "../../accounts/queries";
import { sha256Hex } from "../../lib/crypto";
import { ProblemError } from "../../lib/problem";

export type BasicAuthOptions = {
  /** The realm announced in `WWW-Authenticate`. */
  realm: string;
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
    const [account, presentedHash] = await Promise.all([
      findActiveAccountCredential(c.var.db, credentials.username),
      sha256Hex(credentials.password),
    ]);
    const storedHash = account?.secret_sha256 ?? NO_ACCOUNT_HASH;
    const matches = await timingSafeEqual(storedHash, presentedHash);
    if (!account || !matches) {
      throw unauthorized("The user name or password is wrong.");
    }
    c.set("principal", { name: account.name, role: account.role });
    await next();
  });
};
