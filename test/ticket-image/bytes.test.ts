// The rendered PNG bytes, pinned: a change to how the card is drawn or
// encoded that is meant to keep the picture (resvg's `background`, the
// palette pass, how the SVG is written) must keep every byte. A change that alters the
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
  ["general", GENERAL_TICKET, "1a25d26090274ec22461ce4884408c645acf9243820e2f212f798f05c0f06a64"],
  ["event", EVENT_TICKET, "dd4ca56ca6ef3c264a23a9c6918cb337d341e5cd063e1b9190c62ff14249f2ab"],
  [
    "event, two lines of name",
    { ...EVENT_TICKET, eventName: "Treasure Maps, Parrots and the Lost Art of Reading Other People's Code Under a Full Moon" },
    "812da4044bdc5bec4d69d72388476dc23dfbef4efe51a3ef3c50b1c51e38ec85"],
  ["general, cancelled", { ...GENERAL_TICKET, cancelled: true }, "cdb2c7ae8f089e5322fb0a5fba465449f8ab6b5439ac1b1bc5bca026c2889649"],
  ["event, cancelled", { ...EVENT_TICKET, cancelled: true }, "fe3c9ab032483b927dd4524529351188345a3041e0aebdb67e18e0e909ad6ac7"],
];

describe(`ticket PNG bytes (layout version ${TICKET_IMAGE_LAYOUT_VERSION})`, () => {
  it.each(CARDS)("%s card", async (_kind, ticket, digest) => {
    const png = await renderTicketPng(ticket, await signTicketCode(ticket, SIGNER));
    expect(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", png)))).toBe(digest);
  });
});
