import type { RequestIdVariables } from "hono/request-id";
import type { AccountRole } from "./accounts/schemas";
import type { Configuration } from "./configuration";
import type { Db } from "./platform/batch";

/** The account a request was authenticated as. */
export type Principal = {
  name: string;
  role: AccountRole;
};

/** Hono environment shared by every route and middleware of the app. */
export type AppEnv = {
  Bindings: Env;
  Variables: RequestIdVariables & {
    /** The Worker's settings and secrets, parsed once per isolate (the configuration middleware). */
    config: Configuration;
    /** The request's D1 session (see the d1-session middleware). */
    db: Db;
    /** A session on the primary, for a lookup that missed on `db` (platform/fresh-read.ts). */
    primaryDb: () => Db;
    /** Set by the basic-auth middleware on every /v1.1 request. */
    principal: Principal;
  };
};
