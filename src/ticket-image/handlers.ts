import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import type { AppRouteHandler } from "../http/types";
import { D1_BOOKMARK_HEADER } from "../middleware/d1-session";
import { readFresh } from "../platform/fresh-read";
import { ticketNotFound } from "../tickets/problems";
import { loadTicketImage, matchesIfNoneMatch, ticketImageEtag } from "./cache";
import { lookUpTicketForImage, type TicketImageLookup } from "./lookup";
import { codeSignerAt } from "./code-keys";
import { need } from "../configuration";
import type * as routes from "./routes";

/** The 409 of a ticket that was never sold, so has no image and no code: held, or its hold ended. */
function notSold(ticketId: string, state: Exclude<TicketImageLookup["state"], "sold">): ProblemError {
  if (state === "held") {
    return new ProblemError(409, {
      type: PROBLEM_TYPES.ticketHeld,
      title: "Ticket held",
      detail: "This ticket is held for an order being paid for: it has no image and no code until the order is confirmed.",
      extensions: { ticketId },
    });
  }
  return new ProblemError(409, {
    type: PROBLEM_TYPES.holdEnded,
    title: "Hold ended",
    detail: "This ticket's hold was released or ran out: it was never sold, so it has no image and no code (unless a late confirmation of its order sells it).",
    extensions: { ticketId },
  });
}

export const getTicketCode: AppRouteHandler<typeof routes.getTicketCode> = async (c) => {
  const { ticketId } = c.req.valid("param");
  // A client that sends a session bookmark reads its own writes (README, "Read
  // replicas"): only a request without one may be answered from this isolate's memory.
  const mayRecall = c.req.header(D1_BOOKMARK_HEADER) === undefined;
  let found = await readFresh(c.var, (db) => lookUpTicketForImage(db, ticketId, c.var.principal, mayRecall));
  if (!found) throw ticketNotFound(ticketId);
  // Not sold on a replica: its confirmation (late too) may have just been written on the primary.
  if (found.state !== "sold") found = (await lookUpTicketForImage(c.var.primaryDb(), ticketId, c.var.principal, false)) ?? found;
  // Before the ETag: a ticket never sold has no image, so If-None-Match matches nothing.
  if (found.state !== "sold") throw notSold(ticketId, found.state);
  const { ticket } = found;

  const signer = codeSignerAt(need(c.var.config, "codeKeys").codeKeys, new Date());
  const etag = await ticketImageEtag(ticket, signer);
  // Kiosks may keep the image but must revalidate it, so a cancellation shows.
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesIfNoneMatch(c.req.header("If-None-Match"), etag)) {
    return c.body(null, 304, headers);
  }
  const { png } = await loadTicketImage(ticket, signer, etag, (promise) => c.executionCtx.waitUntil(promise));
  return c.body(png, 200, { ...headers, "Content-Type": "image/png" });
};
