import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import type { AppRouteHandler } from "../http/types";
import { D1_BOOKMARK_HEADER } from "../middleware/d1-session";
import { readFresh } from "../platform/fresh-read";
import { ticketNotFound } from "../tickets/problems";
import { loadTicketImage, matchesIfNoneMatch, ticketImageEtag } from "./cache";
import { lookUpTicketForImage } from "./lookup";
import { codeKeysOf, codeSignerAt } from "./code-keys";
import type * as routes from "./routes";

export const getTicketCode: AppRouteHandler<typeof routes.getTicketCode> = async (c) => {
  const { ticketId } = c.req.valid("param");
  // A client that sends a session bookmark reads its own writes (README, "Read
  // replicas"): only a request without one may be answered from this isolate's memory.
  const mayRecall = c.req.header(D1_BOOKMARK_HEADER) === undefined;
  let ticket = await readFresh(c.var, (db) => lookUpTicketForImage(db, ticketId, c.var.principal, mayRecall));
  if (!ticket) throw ticketNotFound(ticketId);
  // Held on a replica: its confirmation may have just been written on the primary.
  if (ticket.held) ticket = (await lookUpTicketForImage(c.var.primaryDb(), ticketId, c.var.principal, false)) ?? ticket;
  if (ticket.held) {
    throw new ProblemError(409, {
      type: PROBLEM_TYPES.ticketHeld,
      title: "Ticket held",
      detail: "This ticket is held for an order being paid for: it has no image and no code until the order is confirmed.",
      extensions: { ticketId },
    });
  }

  const signer = codeSignerAt(codeKeysOf(c.env), new Date());
  const etag = await ticketImageEtag(ticket, signer);
  // Kiosks may keep the image but must revalidate it, so a cancellation shows.
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesIfNoneMatch(c.req.header("If-None-Match"), etag)) {
    return c.body(null, 304, headers);
  }
  const { png } = await loadTicketImage(ticket, signer, etag, (promise) => c.executionCtx.waitUntil(promise));
  return c.body(png, 200, { ...headers, "Content-Type": "image/png" });
};
