import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { validationProblem } from "../../http/errors";

// D1 bookmarks are short opaque tokens of hex digits and dashes; anything else
// is refused before it reaches D1.
const BOOKMARK_PATTERN = /^[0-9A-Za-z-]{1,128}$/;
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The header carrying the client's last bookmark in, and the session's bookmark out (README, "Read replicas"). */
export const D1_BOOKMARK_HEADER = "x-d1-bookmark";

/**
 * Runs the request in one D1 session (read replication): it continues from the
 * client's bookmark when one is sent, else reads may go to any replica and
 * writes start at the primary. The session's latest bookmark goes back to the
 * client so that its next request reads its own writes. Sets `db`, and
 * `primaryDb` for a lookup that must not miss a write made a moment ago.
 */
export const d1Session = () => {
  const headerName = D1_BOOKMARK_HEADER;
  return createMiddleware<AppEnv>(async (c, next) => {
    const bookmark = c.req.header(headerName);
    if (bookmark !== undefined && !BOOKMARK_PATTERN.test(bookmark)) {
      // A bad header is a bad input value like any other: a validation
      // problem naming the offending field, as the contract asks of every 400.
      throw validationProblem([
        { path: `header.${headerName.toLowerCase()}`, message: "Must be a D1 bookmark returned by this service." },
      ]);
    }
    const session = c.env.DB.withSession(
      bookmark ?? (READ_METHODS.has(c.req.method) ? "first-unconstrained" : "first-primary"),
    );
    c.set("db", session);
    c.set("primaryDb", () => c.env.DB.withSession("first-primary"));
    await next();
    const latest = session.getBookmark();
    if (latest) c.header(headerName, latest);
  });
};
