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
  ["general", GENERAL_TICKET, "26c39ea2eb9e707f0cb2c5bb9e8c2fb4140cee037072fe808aaa707225e426e7"],
  ["event", EVENT_TICKET, "2c33abc6edee8fc658221390dbae9b6f80f6d0ce0a17212207be845c74eeecec"],
  [
    "event, two lines of name",
    { ...EVENT_TICKET, eventName: "Treasure Maps, Parrots and the Lost Art of Reading Other People's Code Under a Full Moon" },
    "5e30d87b6996b2ebf8945995639cbefdf7a2cc5510208bf9d7798a0e83a361b7"],
  ["general, cancelled", { ...GENERAL_TICKET, cancelled: true }, "dffb8ed6f9c6db33401d475befbf1c58076c55bd8abce9c986947801648f270d"],
  ["event, cancelled", { ...EVENT_TICKET, cancelled: true }, "b02a1b665943ec065c454f170bd9115f49119ffaf5b1f06b0809c3a898082dba"],
];

describe(`ticket PNG bytes (layout version ${TICKET_IMAGE_LAYOUT_VERSION})`, () => {
  it.each(CARDS)("%s card", async (_kind, ticket, digest) => {
    const png = await renderTicketPng(ticket, await signTicketCode(ticket, SIGNER));
    expect(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", png)))).toBe(digest);
  });
});
