// Reads the QR code in a ticket image (PNG) as gates' scanners would:
// fast-png decodes the pixels; two independent decoders, jsQR and ZXing
// (ZXing-C++ built to wasm, zxing-wasm), find and read the code, at the
// image's own size and as printed on an 80 mm receipt (scaled to 576 pixels
// wide). Used by the scripts (Node) and by the tests (workerd) alike.
import { decode, hasPngSignature } from "fast-png";
import jsQR from "jsqr";
import { prepareZXingModule, readBarcodes } from "zxing-wasm/reader";

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** PNG bytes → 8-bit RGBA pixels (grey, grey+alpha, RGB, RGBA or palette input), composited on white. */
export function pngToRgba(bytes) {
  const input = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (!hasPngSignature(input)) throw new Error("not a PNG (bad signature)");
  const png = decode(input);
  const { width, height, channels, depth } = png;
  const rgba = new Uint8ClampedArray(width * height * 4);
  const sample = (i) => {
    const v = png.data[i];
    return depth === 16 ? v >> 8 : depth < 8 ? Math.round((v * 255) / ((1 << depth) - 1)) : v;
  };
  for (let p = 0; p < width * height; p++) {
    let r, g, b;
    let a = 255;
    if (png.palette) {
      const color = png.palette[png.data[p]];
      [r, g, b] = [color[0], color[1], color[2]];
      a = color[3] ?? 255;
    } else if (channels >= 3) {
      [r, g, b] = [sample(p * channels), sample(p * channels + 1), sample(p * channels + 2)];
      if (channels === 4) a = sample(p * channels + 3);
    } else {
      r = g = b = sample(p * channels);
      if (channels === 2) a = sample(p * channels + 1);
    }
    // As a screen or a printer would show it.
    const o = p * 4;
    rgba[o] = Math.round((r * a + 255 * (255 - a)) / 255);
    rgba[o + 1] = Math.round((g * a + 255 * (255 - a)) / 255);
    rgba[o + 2] = Math.round((b * a + 255 * (255 - a)) / 255);
    rgba[o + 3] = 255;
  }
  return { width, height, rgba };
}

/** Decodes the QR code in a PNG with jsQR; null when none is found. */
export function decodeQrPng(bytes) {
  const { width, height, rgba } = pngToRgba(bytes);
  const code = jsQR(rgba, width, height, { inversionAttempts: "dontInvert" });
  return code ? { ...code, width, height } : null;
}

/** 80 mm thermal receipt paper: 576 printable dots a line at 203 dpi. */
export const RECEIPT_WIDTH = 576;

/**
 * The image resampled to `width` pixels wide (the height in proportion) by
 * bilinear interpolation between pixel centres, as a printer driver scales a
 * picture to the paper.
 */
function scaleBilinear(image, width) {
  const height = Math.max(1, Math.round((image.height * width) / image.width));
  const rgba = new Uint8ClampedArray(width * height * 4);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), image.height - 1);
    const y0 = Math.floor(fy);
    const y1 = Math.min(y0 + 1, image.height - 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), image.width - 1);
      const x0 = Math.floor(fx);
      const x1 = Math.min(x0 + 1, image.width - 1);
      const wx = fx - x0;
      const [a, b, c, d] = [y0 * image.width + x0, y0 * image.width + x1, y1 * image.width + x0, y1 * image.width + x1].map((p) => p * 4);
      for (let ch = 0; ch < 4; ch++) {
        const top = image.rgba[a + ch] * (1 - wx) + image.rgba[b + ch] * wx;
        const bottom = image.rgba[c + ch] * (1 - wx) + image.rgba[d + ch] * wx;
        rgba[(y * width + x) * 4 + ch] = Math.round(top * (1 - wy) + bottom * wy);
      }
    }
  }
  return { width, height, rgba };
}

/** jsQR's reading of the QR code in RGBA pixels: its text, or null. */
async function readWithJsqr(image) {
  return jsQR(image.rgba, image.width, image.height, { inversionAttempts: "dontInvert" })?.data ?? null;
}

let zxingWasm;

/**
 * Hands ZXing its compiled wasm (a `WebAssembly.Module`): the tests in workerd
 * import it (wrangler's `*.wasm` rule), where nothing may be compiled from
 * bytes. Without it, the first reading in Node compiles the package's file.
 */
export function useZxingWasm(module) {
  zxingWasm = module;
  prepareZXingModule({
    overrides: {
      instantiateWasm(imports, instantiated) {
        WebAssembly.instantiate(module, imports).then((instance) => instantiated(instance));
        return {};
      },
    },
  });
}

/**
 * ZXing's reading of the QR code in RGBA pixels, the way a scanner set for QR
 * codes reads (no extra effort: no rotation, inversion or downscaling tried):
 * `{ text, mirrored }`, or null when it finds no valid code.
 */
export async function readWithZxingDetails(image) {
  if (zxingWasm === undefined) {
    const { readFile } = await import("node:fs/promises");
    useZxingWasm(await WebAssembly.compile(await readFile(new URL(import.meta.resolve("zxing-wasm/reader/zxing_reader.wasm")))));
  }
  const [found] = await readBarcodes(
    { data: image.rgba, width: image.width, height: image.height },
    { formats: ["QRCode"], tryHarder: false, tryRotate: false, tryInvert: false, tryDownscale: false, maxNumberOfSymbols: 1 },
  );
  return found?.isValid ? { text: found.text, mirrored: found.isMirrored } : null;
}

/** ZXing's reading of the QR code in RGBA pixels: its text, or null. */
async function readWithZxing(image) {
  return (await readWithZxingDetails(image))?.text ?? null;
}

const QR_DECODERS = { jsQR: readWithJsqr, ZXing: readWithZxing };

/**
 * Every reading of a ticket PNG's QR code: each decoder (QR_DECODERS) at the
 * image's own size and, unless that is receipt width already (a card printed
 * dot for dot), scaled to receipt width. `[{ decoder, width, text }]`, text
 * null where that decoder found no code.
 */
export async function readingsOf(pngBytes) {
  const own = pngToRgba(pngBytes);
  const images = own.width === RECEIPT_WIDTH ? [own] : [own, scaleBilinear(own, RECEIPT_WIDTH)];
  const readings = [];
  for (const image of images) {
    for (const [decoder, read] of Object.entries(QR_DECODERS)) readings.push({ decoder, width: image.width, text: await read(image) });
  }
  return readings;
}

/**
 * The QR code's text in a ticket PNG, as both decoders read it at the image's
 * own size and at receipt width (readingsOf); throws unless every reading agrees.
 */
export async function readTicketCode(pngBytes) {
  const readings = await readingsOf(pngBytes);
  const texts = new Set(readings.map((reading) => reading.text));
  if (texts.size === 1 && texts.has(null)) throw new Error("no QR code found in the image");
  if (texts.size !== 1 || texts.has(null)) {
    const each = readings.map((r) => `${r.decoder} at ${r.width} px: ${r.text === null ? "no code" : JSON.stringify(r.text)}`);
    throw new Error(`the QR code does not read alike with every decoder at every size (${each.join("; ")})`);
  }
  return readings[0].text;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/**
 * The ticketId a ticket code names, unverified: for checking which ticket an
 * image shows, not whether the code is genuine (the service, or a gate with
 * the keys, tells that). A JWS names it in its payload's `tid`; a code printed
 * before those in its fourth part (the UUID's 16 bytes in base32).
 */
export function ticketIdOfCode(code) {
  const parts = code.split(".");
  if (parts.length === 3) {
    let tid;
    try {
      tid = JSON.parse(atob(parts[1].replace(/-/g, "+").replace(/_/g, "/"))).tid;
    } catch {
      tid = undefined;
    }
    if (typeof tid !== "string") throw new Error(`not a ticket code: ${code}`);
    return tid;
  }
  const id = parts[3] ?? "";
  if (!/^[A-Z2-7]{26}$/.test(id)) throw new Error(`not a ticket code: ${code}`);
  let bits = "";
  for (const char of id) bits += BASE32.indexOf(char).toString(2).padStart(5, "0");
  const hex = bits
    .slice(0, 128)
    .match(/.{4}/g)
    .map((nibble) => parseInt(nibble, 2).toString(16))
    .join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
