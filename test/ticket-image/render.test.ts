import QRCode from "qrcode-svg";
import { describe, expect, it } from "vitest";
import { codeKeysFromEnv } from "../../src/configuration/code-keys";
import { codeSignerAt, renderTicketPng, signTicketCode, verifyTicketCode } from "../../src/ticket-image";
import { CARD } from "../../src/ticket-image/card";
import { PNG_SIGNATURE, RECEIPT_WIDTH, pngToRgba, readWithZxingDetails, readingsOf } from "../support/qr-decode";
import { countRenders } from "../support/render-count";
import { TEST_CODE_KEYS } from "../support/code-keys";
import { EVENT_TICKET, GENERAL_TICKET, type SampleTicket } from "./fixtures";

const KEYS = codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys: TEST_CODE_KEYS }) });
const SIGNER = codeSignerAt(KEYS, new Date("2026-12-01T12:00:00Z"));
/** The longest codes the service signs: an 8-character key id (and a 20-character category id, below). */
const LONGEST_KEY = { ...TEST_CODE_KEYS[0]!, kid: "K2026-12" };
const LONGEST_KEYS = codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys: [LONGEST_KEY] }) });
const LONGEST_SIGNER = codeSignerAt(LONGEST_KEYS, new Date("2026-12-01T12:00:00Z"));
const LONGEST_CATEGORY = "concession-students1";

const GENERAL = GENERAL_TICKET;
const EVENT: SampleTicket = {
  ...EVENT_TICKET,
  eventName: (
    "Pirate Coding Workshop: Treasure Maps, Parrots and the Lost Art of Reading Other People's Code " +
    "Under a Full Moon on the Old Harbour Pier, with Sea Shanties, Grog, Treasure and a Very Long Title Indeed!!!"
  ).slice(0, 200),
};

type Image = ReturnType<typeof pngToRgba>;

/**
 * Renders the ticket with the code its signer signs, checks the PNG, and reads
 * its QR code with both decoders at the card's own size, which is receipt
 * width (a printer prints it dot for dot): every reading is exactly the code.
 */
async function renderAndScan(ticket: SampleTicket, signer = SIGNER) {
  const code = await signTicketCode(ticket, signer);
  const png = await renderTicketPng(ticket, code);
  expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  const readings = await readingsOf(png);
  expect(readings.map(({ decoder, width }) => `${decoder}@${width}`)).toEqual([`jsQR@${RECEIPT_WIDTH}`, `ZXing@${RECEIPT_WIDTH}`]);
  for (const reading of readings) expect(reading.text, `${reading.decoder} at ${reading.width} px`).toBe(code);
  const image = pngToRgba(png);
  expect([image.width, image.height]).toEqual([CARD.width, CARD.height]);
  return { code, png, image };
}

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

/**
 * The QR symbol as drawn in the image: the box of its dark pixels (in the QR
 * box) and its module size in pixels, measured from the top-left finder
 * pattern's top edge (7 modules of dark pixels in a row).
 */
function symbolOf(image: Image) {
  const dark = (x: number, y: number) => image.rgba[(y * image.width + x) * 4]! < 128;
  const box = { from: CARD.qrBox.x, to: CARD.qrBox.x + CARD.qrBox.size };
  let [left, top, right, bottom] = [Infinity, Infinity, -1, -1];
  for (let y = box.from; y < box.to; y++) {
    for (let x = box.from; x < box.to; x++) {
      if (!dark(x, y)) continue;
      [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
    }
  }
  let finderEdge = 0;
  while (dark(left + finderEdge, top)) finderEdge++;
  return { left, top, right, bottom, module: finderEdge / 7 };
}

describe("renderTicketPng", () => {
  // First in the file: the three renders race to initialise resvg-wasm.
  it("counts one render per PNG, and initialises resvg once when renders race", async () => {
    const code = await signTicketCode(GENERAL, SIGNER);
    const counter = countRenders();
    const pngs = await Promise.all([1, 2, 3].map(() => renderTicketPng(GENERAL, code)));
    expect(counter.renders).toBe(3);
    expect(pngs[1]).toEqual(pngs[0]); // deterministic
    expect(pngs[2]).toEqual(pngs[0]);
  });

  it("renders a general ticket whose QR code decodes, with both decoders, to a code that verifies", async () => {
    const { code, image } = await renderAndScan(GENERAL);
    expect(await verifyTicketCode(code, KEYS)).toEqual({ tid: GENERAL.ticketId, typ: "general", date: GENERAL.ticketDate, cat: GENERAL.category, kid: "T1" });
    // The text column has ink: the bundled fonts were loaded (resvg has no others).
    expect(count(image, CARD.textX, 20, CARD.width - 20, CARD.height - 20).ink).toBeGreaterThan(2000);
    // So does the code under the QR code.
    expect(count(image, CARD.codeX, CARD.qrBox.y + CARD.qrBox.size + 20, CARD.codeX + CARD.codeWidth, CARD.height - 10).ink).toBeGreaterThan(1000);
  });

  it("draws the QR code at 4 pixels a module (4 printer dots on a receipt), its quiet zone white and inside the image", async () => {
    const { code, image } = await renderAndScan(EVENT);
    const symbol = symbolOf(image);
    const modules = new QRCode({ content: code, ecl: "M" }).qrcode.getModuleCount();
    expect(symbol.module).toBe(4);
    expect([symbol.right - symbol.left + 1, symbol.bottom - symbol.top + 1]).toEqual([modules * 4, modules * 4]);
    const quiet = 4 * symbol.module;
    expect(symbol.left - quiet).toBeGreaterThanOrEqual(0);
    expect(symbol.top - quiet).toBeGreaterThanOrEqual(0);
    // Nothing but white within 4 modules of the symbol.
    const ring = count(image, symbol.left - quiet, symbol.top - quiet, symbol.right + 1 + quiet, symbol.bottom + 1 + quiet).ink;
    expect(ring).toBe(count(image, symbol.left, symbol.top, symbol.right + 1, symbol.bottom + 1).ink);
  });

  it("draws the QR code in the standard orientation (ZXing reports no mirror image)", async () => {
    const { image } = await renderAndScan(GENERAL);
    expect((await readWithZxingDetails(image))?.mirrored).toBe(false);
  });

  it("renders an event ticket with a 200-character event name, still scannable", async () => {
    const { image } = await renderAndScan(EVENT);
    // The event name's three lines have ink; nothing spills past the card's right padding.
    expect(count(image, CARD.textX, 145, CARD.width - 16, 205).ink).toBeGreaterThan(1500);
    expect(count(image, CARD.textX + CARD.textWidth + 1, 20, CARD.width - 6, CARD.height - 20).ink).toBe(0);
  });

  it("renders a cancelled ticket visibly void (a red border, red lettering) and still scannable", async () => {
    const normal = await renderAndScan(EVENT);
    const cancelled = await renderAndScan({ ...EVENT, cancelled: true });
    expect(cancelled.code).toBe(normal.code);
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
});

describe("every card kind with the longest code the service signs", () => {
  const kinds: [string, SampleTicket][] = [
    ["general", GENERAL],
    ["timed", { ...GENERAL, entryTime: "17:45" }],
    ["event", EVENT],
    ["general, cancelled", { ...GENERAL, cancelled: true }],
    ["event, cancelled", { ...EVENT, cancelled: true }],
    ["category name of 1 character", { ...EVENT, categoryName: "A" }],
    ["category name of 20 characters", { ...EVENT, categoryName: "Students and seniors" }],
    ["category name of 100 characters (the longest)", { ...EVENT, categoryName: "Concession: students, seniors, jobseekers and carers, each with a valid card or letter, one child up" }],
  ];
  it.each(kinds)("%s: both decoders read exactly the code at receipt width, the card's own", async (_kind, ticket) => {
    const { code } = await renderAndScan({ ...ticket, category: LONGEST_CATEGORY }, LONGEST_SIGNER);
    if (ticket.ticketType === "event") expect(code).toHaveLength(337);
  });
  it("holds the category names the test renders", () => {
    expect(kinds.at(-1)![1].categoryName).toHaveLength(100);
    expect(kinds.at(-2)![1].categoryName).toHaveLength(20);
  });
});
