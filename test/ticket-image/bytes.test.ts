// The rendered PNG bytes, pinned: a change to how the card is drawn or
// encoded that is meant to keep the picture (resvg's `background`, the QR as
// runs, the palette pass) must keep every byte. A change that alters the
// picture updates these digests together with TICKET_IMAGE_LAYOUT_VERSION.
import { describe, expect, it } from "vitest";
import { toHex } from "../../src/platform/crypto";
import { codeKeysFromEnv } from "../../src/configuration/code-keys";
import { TICKET_IMAGE_LAYOUT_VERSION, codeSignerAt, renderTicketPng, signTicketCode } from "../../src/ticket-image";
import { TEST_CODE_KEYS } from "../support/code-keys";
import { EVENT_TICKET, GENERAL_TICKET, type SampleTicket } from "./fixtures";

// Ed25519 signatures are deterministic: one ticket and key, one code, one picture.
const SIGNER = codeSignerAt(codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys: TEST_CODE_KEYS }) }), new Date("2026-12-01T12:00:00Z"));

const CARDS: [string, SampleTicket, string][] = [
  ["general", GENERAL_TICKET, "a3d10bc1780e0c7836166864297c213c353615a9e47072353e91350bf5c319fc"],
  ["event", EVENT_TICKET, "1afe9d6ea41544e5330fa72173cd004096e581924ecab759244def8059c33bc4"],
  [
    "event, two lines of name",
    { ...EVENT_TICKET, eventName: "Treasure Maps, Parrots and the Lost Art of Reading Other People's Code Under a Full Moon" },
    "a1782e1cb4c4a2b00e0bcf894f55231300d5cb7c6a8fefe138cd7edaaee4ba84"],
  ["general, cancelled", { ...GENERAL_TICKET, cancelled: true }, "42328262ec0c7856d71fb21bc3254e73468bbe43d4345d7f43582214b4118e07"],
  ["event, cancelled", { ...EVENT_TICKET, cancelled: true }, "1d03b94b6b79bcdfd15ef4af1bc04f5107070d7ecdb621a2ef79b780d6f65397"],
];

describe(`ticket PNG bytes (layout version ${TICKET_IMAGE_LAYOUT_VERSION})`, () => {
  it.each(CARDS)("%s card", async (_kind, ticket, digest) => {
    const png = await renderTicketPng(ticket, await signTicketCode(ticket, SIGNER));
    expect(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", png)))).toBe(digest);
  });
});
