/**
 * Rasterises the ticket card with resvg-wasm and encodes the pixels with
 * png.ts. The wasm module and the Inter fonts are bundled (wrangler: `*.wasm`
 * as a compiled module, `*.ttf` as data).
 */
import interBold from "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf";
import interRegular from "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf";
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import resvgWasm from "@resvg/resvg-wasm/index_bg.wasm";
import { buildTicketQr, buildTicketSvg, CARD, CARD_BACKGROUND, type TicketImageInput, type TicketQr } from "./card";
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

// Font bytes handed to resvg on every render (resvg copies them into wasm memory).
const fontBuffers = [toBytes(interRegular), toBytes(interBold)];

function toBytes(data: ArrayBuffer | Uint8Array): Uint8Array {
  return data instanceof Uint8Array ? data : new Uint8Array(data);
}

/**
 * Rasterises an SVG document to RGBA pixels at its own size, on the card's
 * background: resvg fills the canvas with it, cheaper than painting a
 * full-card rectangle over every pixel.
 */
async function svgToPixels(svg: string): Promise<{ pixels: Uint8Array; width: number; height: number }> {
  await ensureResvg();
  const resvg = new Resvg(svg, {
    fitTo: { mode: "original" },
    background: CARD_BACKGROUND,
    font: { fontBuffers, defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
  });
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

/** Paints the QR code's dark modules, opaque black squares, into the card's RGBA pixels (its box is white there). */
function paintQr(pixels: Uint8Array, width: number, qr: TicketQr): void {
  const rows = new Uint32Array(pixels.buffer, pixels.byteOffset, pixels.byteLength / 4);
  const black = new Uint32Array(new Uint8Array([0, 0, 0, 255]).buffer)[0]!;
  const quiet = CARD.qrQuietZone * qr.moduleSize;
  for (let row = 0; row < qr.moduleCount; row++) {
    const top = qr.y + quiet + row * qr.moduleSize;
    for (let col = 0; col < qr.moduleCount; col++) {
      if (!qr.isDark(col, row)) continue;
      const left = qr.x + quiet + col * qr.moduleSize;
      for (let y = top; y < top + qr.moduleSize; y++) rows.fill(black, y * width + left, y * width + left + qr.moduleSize);
    }
  }
}

/** Builds the ticket card with the code's QR and returns it as PNG bytes. */
export async function renderTicketPng(ticket: TicketImageInput, token: string): Promise<PngBytes> {
  const qr = buildTicketQr(token);
  const { pixels, width, height } = await svgToPixels(buildTicketSvg(ticket));
  paintQr(pixels, width, qr);
  return encodeRgbaPng(pixels, width, height);
}
