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
  ["general", GENERAL_TICKET, "c4b248be35f4e8def7f73c39b0c38a8a235b88d3f5f9263aa6d0513a80aebfbf"],
  ["event", EVENT_TICKET, "601934b5a083da575674aa24d3631b5de4af9d47b087937ae7f01284574d25e1"],
  [
    "event, two lines of name",
    { ...EVENT_TICKET, eventName: "Treasure Maps, Parrots and the Lost Art of Reading Other People's Code Under a Full Moon" },
    "121ebabd2650e5f2d371a4f4de22d09bd7cf72340abf0d2e79314a6636405a1e"],
  ["general, cancelled", { ...GENERAL_TICKET, cancelled: true }, "50dd9c163980a78afaed673089c25ac61e5fce1b172ff8508cfa1ac950700a10"],
  ["event, cancelled", { ...EVENT_TICKET, cancelled: true }, "f5566cfaa44953794fc24aca92f15b45e7089caee4b9926f3c341320b1957e9d"],
];

describe(`ticket PNG bytes (layout version ${TICKET_IMAGE_LAYOUT_VERSION})`, () => {
  it.each(CARDS)("%s card", async (_kind, ticket, digest) => {
    const png = await renderTicketPng(ticket, await signTicketToken(ticket, KEYS));
    expect(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", png)))).toBe(digest);
  });
});
