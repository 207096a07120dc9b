// The rendered PNG bytes, pinned: a change to how the card is drawn or
// encoded that is meant to keep the picture (resvg's `background`, the QR as
// runs, the palette pass) must keep every byte. A change that alters the
// picture updates these digests together with TICKET_IMAGE_LAYOUT_VERSION.
import { describe, expect, it } from "vitest";
import { toHex } from "../../src/platform/crypto";
import {
  TICKET_IMAGE_LAYOUT_VERSION,
  renderTicketPng,
  signTicketToken,
  type SigningKeys,
  type TicketImageInput,
} from "../../src/ticket-image";
import { EVENT_TICKET, GENERAL_TICKET } from "./fixtures";

const KEYS: SigningKeys = { current: { id: "K1", secret: "bytes-test-signing-secret-0000000000001" } };

const CARDS: [string, TicketImageInput, string][] = [
  ["general", GENERAL_TICKET, "c49408778657a68e06c089b495bd72b015ba1e536aff0644df302f59d199d6bc"],
  ["event", EVENT_TICKET, "0163614a3a32cb084ce8b7d469bdb6eb8610f54188ab85037672ef8e17fa6518"],
  [
    "event, three lines of name",
    { ...EVENT_TICKET, eventName: "Treasure Maps, Parrots and the Lost Art of Reading Other People's Code Under a Full Moon" },
    "e3b78b6cce7acc4dd04644a9527ec152ba14b98580f268e0dac6b70a782c0a25"],
  ["general, cancelled", { ...GENERAL_TICKET, cancelled: true }, "79becc35eaa557c0c2a0a78604273e0b5a377f6f5a6149139a0742b470512e51"],
  ["event, cancelled", { ...EVENT_TICKET, cancelled: true }, "34bd7424b898e1ecf7e57a88451da37d7153aa67b8015155b274edb28ec46893"],
];

describe(`ticket PNG bytes (layout version ${TICKET_IMAGE_LAYOUT_VERSION})`, () => {
  it.each(CARDS)("%s card", async (_kind, ticket, digest) => {
    const png = await renderTicketPng(ticket, await signTicketToken(ticket, KEYS));
    expect(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", png)))).toBe(digest);
  });
});
