// The revocation log read by cursor: the one reading of ticket_revocations
// that the cancellations feed (box-office/) and the gates' revocation feed
// (admission/) share, and the one cursor both speak.
import { z } from "@hono/zod-openapi";
import { type Db, runStep } from "../platform/batch";
import { type RevocationFilter, type RevocationRow, selectRevocations } from "./statements/revocations";

/** The most entries a page of a feed holds. */
const FEED_PAGE_SIZE = 1000;

/**
 * A position in the log as a client sees it: opaque (base64url of a small
 * JSON object), so clients store it and send it back rather than compute
 * with it, and the log may change how it numbers without breaking them.
 */
function cursorOf(position: number): string {
  return btoa(JSON.stringify({ p: position })).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The position a cursor names, or null when it is not one this service issued. */
function positionOf(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return null;
  }
  const position = (decoded as { p?: unknown } | null)?.p;
  // Only the exact text this service writes: nothing a hand-edited cursor could slip through.
  return typeof position === "number" && Number.isSafeInteger(position) && position >= 0 && cursorOf(position) === cursor
    ? position
    : null;
}

const CURSOR_MESSAGE = "Must be a cursor this service returned as `next`.";

export const FeedQuerySchema = z.object({
  since: z
    .string()
    .transform((cursor, ctx) => {
      const position = positionOf(cursor);
      if (position === null) {
        ctx.addIssue({ code: "custom", message: CURSOR_MESSAGE });
        return z.NEVER;
      }
      return position;
    })
    .optional()
    .openapi({
      param: {
        name: "since",
        in: "query",
        description: "The `next` of the page read before (opaque); without it, the feed from its start.",
      },
      type: "string",
      example: "eyJwIjoxMjM0fQ",
    }),
});

export const FeedNextSchema = z.string().openapi({
  description:
    "The cursor to send as `since` for the next page: the position of the last entry returned, or `since` again when there was none (always present; a page shorter than 1,000 entries is the end for now).",
  example: "eyJwIjoxMjM0fQ",
});

/**
 * A page of the revocation log after `since` (a position; none: from the
 * start), filtered, with the cursor of the next page. One round trip.
 */
export async function revocationPage(
  db: Db,
  filter: Omit<RevocationFilter, "after" | "limit">,
  since: number | undefined,
): Promise<{ entries: RevocationRow[]; next: string }> {
  const after = since ?? 0;
  const entries = await runStep(selectRevocations(db, { ...filter, after, limit: FEED_PAGE_SIZE }));
  return { entries, next: cursorOf(entries.at(-1)?.position ?? after) };
}
