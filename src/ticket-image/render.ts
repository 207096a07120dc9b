/**
 * Rasterises the ticket card (QR code included) with resvg-wasm and encodes
 * the pixels with png.ts. The wasm module and the fonts are bundled (wrangler:
 * `*.wasm` as a compiled module, `*.ttf` as data).
 */
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import resvgWasm from "@resvg/resvg-wasm/index_bg.wasm";
import { buildTicketSvg, CARD_BACKGROUND, cardLines, type TicketImageInput } from "./card";
import { CARD_FONTS } from "./fonts";
import { encodeRgbaPng } from "./png";
import { outlinedLines } from "./text-outlines";

/** PNG bytes over an ordinary ArrayBuffer, usable as a Response body. */
export type PngBytes = Uint8Array<ArrayBuffer>;

let ready: Promise<void> | undefined;

/** Instantiates resvg's wasm once per isolate (a second initWasm throws "Already initialized"). @internal (for tests) */
export function ensureResvg(): Promise<void> {
  ready ??= initWasm(resvgWasm).catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

type Pixels = { pixels: Uint8Array; width: number; height: number };

/**
 * Rasterises an SVG document to RGBA pixels at its own size, on the card's
 * background: resvg fills the canvas with it, cheaper than painting a
 * full-card rectangle over every pixel. A card drawn from outlines needs no
 * fonts (resvg would copy them into wasm memory and index them for nothing).
 */
async function pixelsOf(svg: string, withFonts: boolean): Promise<Pixels> {
  await ensureResvg();
  const resvg = new Resvg(svg, { fitTo: { mode: "original" }, background: CARD_BACKGROUND, ...(withFonts ? { font: CARD_FONTS } : {}) });
  let pixels: Uint8Array;
  let width: number;
  let height: number;
  try {
    const image = resvg.render();
    try {
      // A copy out of wasm memory; encoded below by the runtime's zlib (see png.ts).
      ({ pixels, width, height } = image);
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
  return { pixels, width, height };
}

/**
 * An SVG document with `<text>` as RGBA pixels, set in the card's fonts.
 * @internal (for tests)
 */
export function rasterise(svg: string): Promise<Pixels> {
  return pixelsOf(svg, true);
}

/** Builds the ticket card with the code's QR code, its text drawn from outlines, and returns it as PNG bytes. */
export async function renderTicketPng(ticket: TicketImageInput, code: string): Promise<PngBytes> {
  await ensureResvg();
  const lines = cardLines(ticket);
  const { pixels, width, height } = await pixelsOf(buildTicketSvg(ticket, code, outlinedLines(lines), lines), false);
  return encodeRgbaPng(pixels, width, height);
}
