/**
 * The ticket image (GET /tickets/{ticketId}/qr): the signed code a ticket's
 * QR code carries (and the keys that sign it), the ticket card PNG, and the caches it is served from.
 * See docs/ticket-image.md. What other features use of it is exported here.
 */
import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const ticketImageRouter = createRouter().openapi(routes.getTicketCode, handlers.getTicketCode);

export { signTicketToken, verifyTicketToken, type VerifiedTicketToken } from "./legacy-token";
export { MAX_CODE_LENGTH, looksLikeTicketCode, signTicketCode, verifyTicketCode, type TicketCodeClaims, type TicketToSign } from "./token";
export { codeSignerAt, publicKeySet, type CodeSigner, type PublicCodeKey } from "./code-keys";
export { TICKET_IMAGE_LAYOUT_VERSION, buildTicketSvg, type TicketImageInput } from "./card";
export { renderTicketPng, ensureResvg, type PngBytes } from "./render";
export {
  IMAGE_MEMORY_TTL_MS,
  loadTicketImage,
  matchesIfNoneMatch,
  prerenderSoldTickets,
  ticketImageEtag,
} from "./cache";
export { forgetTicketLookups } from "./lookup";
