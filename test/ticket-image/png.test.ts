import { convertIndexedToRgb, decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { buildTicketSvg, type TicketImageInput } from "../../src/ticket-image";
import { encodeRgbaPng } from "../../src/ticket-image/png";
import { rasterise } from "../../src/ticket-image/render";
import { EVENT_TICKET, GENERAL_TICKET } from "./fixtures";

/** Decodes a PNG (checking every chunk's CRC) to its header facts and 8-bit RGBA pixels. */
function decodeToRgba(png: Uint8Array) {
  const image = decode(png, { checkCrc: true });
  const indexed = image.palette !== undefined;
  const data = indexed ? convertIndexedToRgb(image) : image.data;
  const channels = indexed ? image.palette![0]!.length : image.channels;
  const rgba = new Uint8Array(image.width * image.height * 4);
  for (let p = 0; p < image.width * image.height; p++) {
    for (let c = 0; c < 4; c++) rgba[p * 4 + c] = c < channels ? data[p * channels + c]! : 255;
  }
  return { width: image.width, height: image.height, depth: image.depth, indexed, paletteSize: image.palette?.length, rgba };
}

/** width × height pixels whose colour is colourOf(pixel number), as RGBA bytes. */
function pixelsOf(width: number, height: number, colourOf: (p: number) => [number, number, number, number]) {
  const rgba = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) rgba.set(colourOf(p), p * 4);
  return rgba;
}

/** A different opaque colour for each n below 2^24. */
const distinct = (n: number): [number, number, number, number] => [n & 255, (n >> 8) & 255, (n >> 16) & 255, 255];

describe("encodeRgbaPng", () => {
  it("writes an image of at most 256 colours as indexed colour, exactly, translucent colours included", () => {
    const colours: [number, number, number, number][] = [
      [255, 255, 255, 255],
      [17, 24, 39, 255],
      [220, 38, 38, 115],
      [0, 0, 0, 0],
      [30, 58, 138, 254],
    ];
    const rgba = pixelsOf(7, 5, (p) => colours[(p * 3) % colours.length]!);
    const png = decodeToRgba(encodeRgbaPng(rgba, 7, 5));
    expect([png.width, png.height, png.depth, png.indexed, png.paletteSize]).toEqual([7, 5, 8, true, colours.length]);
    expect([...png.rgba]).toEqual([...rgba]);
  });

  it("uses a palette up to exactly 256 colours and RGBA from 257 on, exact either way", () => {
    for (const [count, indexed] of [[256, true], [257, false]] as const) {
      const rgba = pixelsOf(40, 10, (p) => distinct(p % count));
      const png = decodeToRgba(encodeRgbaPng(rgba, 40, 10));
      expect(png.indexed).toBe(indexed);
      expect([...png.rgba]).toEqual([...rgba]);
    }
  });

  it("keeps every pixel of a many-coloured image, alpha included (RGBA)", () => {
    const rgba = pixelsOf(20, 15, (p) => [p & 255, p >> 8, (p * 7) & 255, (p * 11 + 5) & 255]);
    const png = decodeToRgba(encodeRgbaPng(rgba, 20, 15));
    expect(png.indexed).toBe(false);
    expect([...png.rgba]).toEqual([...rgba]);
  });

  it("accepts pixels that do not start on a 4-byte boundary", () => {
    const backing = new Uint8Array(1 + 3 * 2 * 4);
    const rgba = backing.subarray(1);
    rgba.set(pixelsOf(3, 2, (p) => distinct(p * 1000)));
    const png = decodeToRgba(encodeRgbaPng(rgba, 3, 2));
    expect([...png.rgba]).toEqual([...rgba]);
  });

  const cards: [string, TicketImageInput, boolean][] = [
    ["general", GENERAL_TICKET, true],
    ["event", EVENT_TICKET, true],
    ["cancelled", { ...EVENT_TICKET, cancelled: true }, true],
  ];
  it.each(cards)("is lossless on a real %s ticket card rendered with the card's fonts", async (_, ticket, indexed) => {
    const { pixels, width, height } = await rasterise(buildTicketSvg(ticket, "a ticket code, drawn as its QR code"));
    const png = decodeToRgba(encodeRgbaPng(pixels, width, height));
    expect([png.width, png.height, png.indexed]).toEqual([width, height, indexed]);
    expect(png.rgba.length).toBe(pixels.length);
    expect(png.rgba.every((v, i) => v === pixels[i])).toBe(true);
  });
});
