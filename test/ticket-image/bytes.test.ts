// The rendered PNG bytes, pinned: a change to how the card is drawn or
// encoded that is meant to keep the picture (resvg's `background`, the QR as
// runs, the palette pass) must keep every byte. A change that alters the
// picture updates these digests together with TICKET_IMAGE_LAYOUT_VERSION.
import { describe, expect, it } from "vitest";
import { toHex } from "../../src/platform/crypto";
import { TICKET_IMAGE_LAYOUT_VERSION, codeKeysFromEnv, codeSignerAt, renderTicketPng, signTicketCode } from "../../src/ticket-image";
import { TEST_CODE_KEYS } from "../support/code-keys";
import { EVENT_TICKET, GENERAL_TICKET, type SampleTicket } from "./fixtures";

// Ed25519 signatures are deterministic: one ticket and key, one code, one picture.
const SIGNER = codeSignerAt(codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys: TEST_CODE_KEYS }) }), new Date("2026-12-01T12:00:00Z"));

const CARDS: [string, SampleTicket, string][] = [
  ["general", GENERAL_TICKET, "9256b9087b31192dfc5f82ae82b5a71227a70050f5f7c6bbf4604dd513d4b9e8"],
  ["event", EVENT_TICKET, "4acff1769755ca6f80a93b9b55422dff962639c2ea8ffad25bca9d28ba67ec6b"],
  [
    "event, three lines of name",
    { ...EVENT_TICKET, eventName: "Treasure Maps, Parrots and the Lost Art of Reading Other People's Code Under a Full Moon" },
    "ae7196730b7d0127528d2dd52ac17395466d256fa9e6fbdf52f93683f085fe9b"],
  ["general, cancelled", { ...GENERAL_TICKET, cancelled: true }, "9abb0048cf5c983853a56d9d8f9307213ed7cb0c87ddb01bd3fc46dc3d2e197a"],
  ["event, cancelled", { ...EVENT_TICKET, cancelled: true }, "d4a3976d21f442cbf379fda854d26918aa1c9237879d95611951a9fe3828cff4"],
];

describe(`ticket PNG bytes (layout version ${TICKET_IMAGE_LAYOUT_VERSION})`, () => {
  it.each(CARDS)("%s card", async (_kind, ticket, digest) => {
    const png = await renderTicketPng(ticket, await signTicketCode(ticket, SIGNER));
    expect(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", png)))).toBe(digest);
  });
});
