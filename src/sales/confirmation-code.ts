import type { TicketType } from "../tickets/schemas";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
// The largest multiple of 36 below 256: bytes at or above it are redrawn so
// every character is equally likely.
const UNBIASED_LIMIT = 252;

function randomChars(count: number): string {
  let out = "";
  while (out.length < count) {
    for (const byte of crypto.getRandomValues(new Uint8Array(count * 2))) {
      if (byte < UNBIASED_LIMIT && out.length < count) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}

/** `ticket-{type}-{6}-{5}` of lowercase letters and digits (≈ 57 random bits). */
export function newConfirmationCode(type: TicketType): string {
  return `ticket-${type}-${randomChars(6)}-${randomChars(5)}`;
}

/** `order-{6}-{5}` of lowercase letters and digits (≈ 57 random bits): an order's own code. */
export function newOrderCode(): string {
  return `order-${randomChars(6)}-${randomChars(5)}`;
}
