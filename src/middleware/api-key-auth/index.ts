import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { selectApiKeyAccount } from "../../accounts/statements";
import { ProblemError } from "../../http/problem";
import type { LoginThrottle } from "../login-throttle";
import { authenticate } from "../login";

export type ApiKeyAuthOptions = {
  /** Failed-login throttling, shared with Basic auth: a wrong key counts as a failed login. Off when not given. */
  throttle?: LoginThrottle;
};

// The login memory's user name for API keys: no account name is ever empty.
const API_KEY_LOGIN = "";

const BEARER = /^Bearer +([\x21-\x7e]{1,256})$/i;

const unauthorized = (detail: string) => new ProblemError(401, { detail, headers: { "WWW-Authenticate": "Bearer" } });

/**
 * `Authorization: Bearer <API key>` against the api_keys table: the key's
 * SHA-256 finds its account (keys are 192-bit random tokens, so one hash per
 * request is enough, and a lookup by hash reveals nothing about a key). A
 * missing, wrong or revoked key is `401`, counted against the same failed-
 * login budget as Basic auth; verified keys are remembered as Basic logins
 * are. Sets `principal` (the key's account).
 */
export const apiKeyAuth = (options: ApiKeyAuthOptions = {}) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const key = BEARER.exec(c.req.header("Authorization") ?? "")?.[1];
    if (key === undefined) {
      throw unauthorized("This operation needs an API key: Authorization: Bearer <key>.");
    }
    await authenticate(c, next, {
      throttle: options.throttle,
      user: API_KEY_LOGIN,
      secret: key,
      // The hash is the lookup key: a row found is the match.
      lookup: (db, keySha256) => selectApiKeyAccount(db, keySha256),
      verify: async (account) => (account ? { name: account.name, role: account.role } : null),
      unauthorized: () => unauthorized("The API key is wrong or revoked."),
    });
  });
