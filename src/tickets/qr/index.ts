/**
 * Ticket QR core: the signed token a ticket's QR code carries, and the ticket
 * card PNG. See docs/ticket-image.md.
 */
export {
  signingKeysFromEnv,
  signTicketToken,
  verifyTicketToken,
  type SigningKey,
  type SigningKeys,
  type VerifiedTicketToken,
} from "./token";
export { TICKET_IMAGE_LAYOUT_VERSION, buildTicketSvg, type TicketImageInput } from "./card";
export { renderTicketPng, ensureResvg, type PngBytes } from "./render";
