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

/**
 * Runs a query function's statements as one batch: `db.batch` by default, or
 * a caller that adds its own statements to the same batch (an event's change
 * or a day's closure carries the tickets' part, see src/tickets/cancel.ts).
 */
export type BatchRunner = (statements: D1PreparedStatement[]) => Promise<D1Result[]>;

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
