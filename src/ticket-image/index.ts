/**
 * The ticket image (GET /tickets/{ticketId}/qr): the signed code a ticket's
 * QR code carries (and the keys that sign it), the ticket card PNG, and the caches it is served from.
 * See docs/ticket-image.md. What other features use of it is exported here.
 */
import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const ticketImageRouter = createRouter().openapi(routes.getTicketCode, handlers.getTicketCode);

export { verifyTicketToken } from "./legacy-token";
export { looksLikeTicketCode, verifyTicketCode } from "./token";
export { codeSignerAt, publicKeySet, type CodeSigner } from "./code-keys";
export { prerenderSoldTickets } from "./cache";
/** @internal (for tests, which import the feature's parts from here too) */
export { signTicketToken } from "./legacy-token";
export { signTicketCode } from "./token";
/** @internal (for tests) */
export { MAX_CODE_LENGTH, type TicketToSign } from "./token";
/** @internal (for tests) */
export { TICKET_IMAGE_LAYOUT_VERSION, buildTicketSvg, type TicketImageInput } from "./card";
/** @internal (for tests) */
export { ensureResvg, renderTicketPng } from "./render";
/** @internal (for tests) */
export { IMAGE_MEMORY_TTL_MS, loadTicketImage, ticketImageEtag } from "./cache";
export { forgetTicketLookups } from "./lookup";
