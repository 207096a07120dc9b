import { createMiddleware } from "hono/factory";
import type { AppEnv, Principal } from "../../env";
import { selectApiKeyAccount } from "../../accounts/statements";
import { sha256Hex } from "../../platform/crypto";
import { ProblemError } from "../../http/problem";
import { clientKey, type LoginThrottle, readCredential } from "../login-throttle";
import { forgetClientLogins, recallLogin, rememberLogin } from "../basic-auth/login-cache";

export type ApiKeyAuthOptions = {
  /** Failed-login throttling, shared with Basic auth: a wrong key counts as a failed login. Off when not given. */
  throttle?: LoginThrottle;
};

// The login memory's user name for API keys: no account name is ever empty.
const API_KEY_LOGIN = "";

const BEARER = /^Bearer +([\x21-\x7e]{1,256})$/i;

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
      throw new ProblemError(401, { detail: "This operation needs an API key: Authorization: Bearer <key>.", headers: { "WWW-Authenticate": "Bearer" } });
    }
    const client = clientKey(c.req.header("CF-Connecting-IP"));
    const login = options.throttle?.(c, client);
    const keySha256 = await sha256Hex(key);
    const remembered = login?.throttledHere() ? undefined : recallLogin(client, API_KEY_LOGIN, keySha256);
    if (remembered) {
      c.set("principal", remembered);
      await next();
      return;
    }
    let principal: Principal;
    try {
      const account = await readCredential(c.var.db, selectApiKeyAccount(c.var.db, keySha256), login);
      if (!account) throw new ProblemError(401, { detail: "The API key is wrong or revoked.", headers: { "WWW-Authenticate": "Bearer" } });
      await login?.forgive();
      principal = { name: account.name, role: account.role };
    } catch (error) {
      forgetClientLogins(client);
      throw error;
    }
    if (!login?.throttledHere()) rememberLogin(client, API_KEY_LOGIN, keySha256, principal);
    c.set("principal", principal);
    await next();
  });
