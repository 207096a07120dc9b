/**
 * Renders the ticket card: resvg-wasm rasterises its SVG, the QR code's
 * modules are painted into the pixels, png.ts encodes them. The wasm module
 * and the Inter fonts are bundled (wrangler: `*.wasm` as a compiled module,
 * `*.ttf` as data).
 */
import interBold from "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf";
import interRegular from "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf";
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import resvgWasm from "@resvg/resvg-wasm/index_bg.wasm";
import { buildTicketQr, buildTicketSvg, type TicketImageInput, type TicketQr } from "./card";
import { FONT_FAMILY } from "./font-metrics";
import { encodeRgbaPng } from "./png";

/**
 * Render counter: renderTicketPng adds one per PNG it produces. Tests read it
 * to prove a cached fetch does not render (count before, fetch, count after).
 */
export const renderStats = { renders: 0 };

/** PNG bytes over an ordinary ArrayBuffer, usable as a Response body. */
export type PngBytes = Uint8Array<ArrayBuffer>;

/** The signature of renderTicketPng, for code that takes the renderer as a dependency. */
export type TicketPngRenderer = (ticket: TicketImageInput, token: string) => Promise<PngBytes>;

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

/** RGBA pixels, row by row. */
type Pixels = { pixels: Uint8Array; width: number; height: number };

/**
 * Rasterises an SVG document at its own size. No `background` option: the
 * card paints its own, and a second fill of every pixel is not free.
 */
async function rasterise(svg: string): Promise<Pixels> {
  await ensureResvg();
  const resvg = new Resvg(svg, {
    fitTo: { mode: "original" },
    font: { fontBuffers, defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
  });
  try {
    const image = resvg.render();
    try {
      // A copy out of wasm memory: painted on and encoded in JS below.
      return { pixels: image.pixels, width: image.width, height: image.height };
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}

/** Opaque black as one RGBA pixel read as a 32-bit word (in the platform's byte order). */
const OPAQUE_BLACK = new Uint32Array(new Uint8Array([0, 0, 0, 255]).buffer)[0]!;

/** Paints the QR code's dark modules over the card: whole pixels, opaque black. */
function paintQrModules({ pixels, width }: Pixels, qr: TicketQr): void {
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, pixels.length / 4);
  for (const run of qr.runs) {
    for (let row = run.y; row < run.y + qr.moduleSize; row++) {
      words.fill(OPAQUE_BLACK, row * width + run.x, row * width + run.x + run.width);
    }
  }
}

/** Builds the ticket card for the token and returns it as PNG bytes. */
export async function renderTicketPng(ticket: TicketImageInput, token: string): Promise<PngBytes> {
  const qr = buildTicketQr(token);
  const image = await rasterise(buildTicketSvg(ticket, qr));
  paintQrModules(image, qr);
  const png = encodeRgbaPng(image.pixels, image.width, image.height);
  renderStats.renders++;
  return png;
}
