import type { RequestIdVariables } from "hono/request-id";
import type { AccountRole } from "./accounts/schemas";

/** The account a request was authenticated as. */
export type Principal = {
  name: string;
  role: AccountRole;
};

/**
 * The database surface the data-access modules need: a plain D1 binding in
 * scripts and query tests, a D1 session inside a request.
 */
export type Db = Pick<D1Database, "prepare" | "batch">;

/** Hono environment shared by every route and middleware of the app. */
export type AppEnv = {
  Bindings: Env;
  Variables: RequestIdVariables & {
    /** The request's D1 session (see the d1-session middleware). */
    db: Db;
    /** Set by the basic-auth middleware on every /v1.1 request. */
    principal: Principal;
  };
};
