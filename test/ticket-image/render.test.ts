import { describe, expect, it } from "vitest";
import { codeKeysFromEnv } from "../../src/configuration/code-keys";
import { codeSignerAt, renderTicketPng, signTicketCode, verifyTicketCode } from "../../src/ticket-image";
import { CARD } from "../../src/ticket-image/card";
import { PNG_SIGNATURE, decodeQrPng, pngToRgba } from "../support/qr-decode";
import { countRenders } from "../support/render-count";
import { TEST_CODE_KEYS } from "../support/code-keys";
import { EVENT_TICKET, GENERAL_TICKET, type SampleTicket } from "./fixtures";

const KEYS = codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys: TEST_CODE_KEYS }) });
const SIGNER = codeSignerAt(KEYS, new Date("2026-12-01T12:00:00Z"));

const GENERAL = GENERAL_TICKET;
const EVENT: SampleTicket = {
  ...EVENT_TICKET,
  eventName: (
    "Pirate Coding Workshop: Treasure Maps, Parrots and the Lost Art of Reading Other People's Code " +
    "Under a Full Moon on the Old Harbour Pier, with Sea Shanties, Grog, Treasure and a Very Long Title Indeed!!!"
  ).slice(0, 200),
};

/**
 * Renders the ticket, checks the PNG, decodes its QR code (at the card's own
 * size, as a kiosk prints it) and verifies the code in it.
 */
async function renderAndScan(ticket: SampleTicket) {
  const token = await signTicketCode(ticket, SIGNER);
  const png = await renderTicketPng(ticket, token);
  expect(png).toBeInstanceOf(Uint8Array);
  expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  const code = decodeQrPng(png);
  expect(code, "jsQR found no QR code in the PNG").not.toBeNull();
  expect(code!.data).toBe(token);
  expect(code!.version).toBeLessThanOrEqual(13);
  expect(code!.chunks.map((c) => c.type)).toEqual(["byte"]);
  expect([code!.width, code!.height]).toEqual([CARD.width, CARD.height]);
  const verified = await verifyTicketCode(code!.data, KEYS);
  expect(verified).toEqual({
    tid: ticket.ticketId,
    typ: ticket.ticketType,
    date: ticket.ticketDate,
    cat: ticket.category,
    ...(ticket.eventId === undefined ? {} : { eid: ticket.eventId }),
    kid: "T1",
  });
  return { token, png, image: pngToRgba(png) };
}

type Image = ReturnType<typeof pngToRgba>;

/** Pixels in a region that are clearly not white (ink), and clearly red. */
function count(image: Image, x0: number, y0: number, x1: number, y1: number) {
  let ink = 0;
  let red = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * image.width + x) * 4;
      const [r, g, b] = [image.rgba[i]!, image.rgba[i + 1]!, image.rgba[i + 2]!];
      if (r + g + b < 600) ink++;
      if (r > 180 && g < 150 && b < 150) red++;
    }
  }
  return { ink, red };
}

describe("renderTicketPng", () => {
  // First in the file: the three renders race to initialise resvg-wasm.
  it("counts one render per PNG, and initialises resvg once when renders race", async () => {
    const token = await signTicketCode(GENERAL, SIGNER);
    const counter = countRenders();
    const pngs = await Promise.all([1, 2, 3].map(() => renderTicketPng(GENERAL, token)));
    expect(counter.renders).toBe(3);
    expect(pngs[1]).toEqual(pngs[0]); // deterministic
    expect(pngs[2]).toEqual(pngs[0]);
  });
  it("renders a general ticket whose QR code decodes to a token that verifies", async () => {
    const { image } = await renderAndScan(GENERAL);
    // The text column has ink: the bundled fonts were loaded (resvg has no others).
    expect(count(image, CARD.textX, 20, CARD.width - 20, CARD.height - 20).ink).toBeGreaterThan(2000);
  });

  it("renders an event ticket with a 200-character event name, still scannable", async () => {
    const { image } = await renderAndScan(EVENT);
    // The event name's three lines (y ≈ 165–240) have ink; nothing spills past the card's right padding.
    expect(count(image, CARD.textX, 160, CARD.width - 20, 240).ink).toBeGreaterThan(1500);
    expect(count(image, CARD.textX + CARD.textWidth + 1, 20, CARD.width - 6, CARD.height - 20).ink).toBe(0);
  });

  it("renders a cancelled ticket visibly void (a red border, red lettering) and still scannable", async () => {
    const normal = await renderAndScan(EVENT);
    const cancelled = await renderAndScan({ ...EVENT, cancelled: true });
    expect(cancelled.token).toBe(normal.token);
    const full = [0, 0, CARD.width, CARD.height] as const;
    expect(count(normal.image, ...full).red).toBe(0);
    expect(count(cancelled.image, ...full).red).toBeGreaterThan(5000);
    // Red on both halves: the border goes round the QR side; the text side says CANCELLED.
    expect(count(cancelled.image, 0, 0, CARD.width / 2, CARD.height).red).toBeGreaterThan(1000);
    expect(count(cancelled.image, CARD.width / 2, 0, CARD.width, CARD.height).red).toBeGreaterThan(1000);
  });

  it("renders hostile and non-ASCII text without failing", async () => {
    await renderAndScan({
      ...EVENT,
      eventName: `</text><svg onload="x">&amp; \u0000\u0008\ud800 Café Ünïcode 🎨 名前 ${"W".repeat(150)}`,
      confirmationCode: "<&>",
    });
  });

  it("keeps the longest code (an 8-character kid, a 20-character category, an event ticket) scannable", async () => {
    const longest = codeSignerAt(
      codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys: [{ ...TEST_CODE_KEYS[0], kid: "K2026-12" }] }) }),
      new Date("2026-12-01T12:00:00Z"),
    );
    const ticket = { ...EVENT, category: "concession-students1" };
    const code = await signTicketCode(ticket, longest);
    expect(code.length).toBeLessThanOrEqual(350);
    const scanned = decodeQrPng(await renderTicketPng(ticket, code));
    expect(scanned?.data).toBe(code);
    expect(scanned!.version).toBeLessThanOrEqual(14);
  });

});
