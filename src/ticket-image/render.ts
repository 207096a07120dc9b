/**
 * Rasterises the ticket card (QR code included) with resvg-wasm and encodes
 * the pixels with png.ts. The wasm module and the fonts are bundled (wrangler:
 * `*.wasm` as a compiled module, `*.ttf` as data).
 */
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import resvgWasm from "@resvg/resvg-wasm/index_bg.wasm";
import { buildTicketSvg, CARD_BACKGROUND, type TicketImageInput } from "./card";
import { CARD_FONTS } from "./fonts";
import { FONT_FAMILY } from "./font-metrics";
import { encodeRgbaPng } from "./png";

/** PNG bytes over an ordinary ArrayBuffer, usable as a Response body. */
export type PngBytes = Uint8Array<ArrayBuffer>;

let ready: Promise<void> | undefined;

/** Instantiates resvg's wasm once per isolate (a second initWasm throws "Already initialized"). */
export function ensureResvg(): Promise<void> {
  ready ??= initWasm(resvgWasm).catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

// The options of every render; resvg copies the font bytes into wasm memory each time.
const RENDER_OPTIONS = {
  fitTo: { mode: "original" },
  background: CARD_BACKGROUND,
  font: { fontBuffers: [...CARD_FONTS], defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
} as const;

/**
 * Rasterises an SVG document to RGBA pixels at its own size, with the card's
 * fonts, on the card's background: resvg fills the canvas with it, cheaper
 * than painting a full-card rectangle over every pixel.
 * @internal (for tests)
 */
export async function rasterise(svg: string): Promise<{ pixels: Uint8Array; width: number; height: number }> {
  await ensureResvg();
  const resvg = new Resvg(svg, RENDER_OPTIONS);
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

/** Builds the ticket card with the code's QR code and returns it as PNG bytes. */
export async function renderTicketPng(ticket: TicketImageInput, code: string): Promise<PngBytes> {
  const { pixels, width, height } = await rasterise(buildTicketSvg(ticket, code));
  return encodeRgbaPng(pixels, width, height);
}
