/**
 * A PNG writer for 8-bit RGBA pixels (written as indexed colour when they fit
 * a 256-colour palette), compressed by the runtime's native zlib (`node:zlib`,
 * which workerd implements in C++ under `nodejs_compat`).
 *
 * Why not resvg's own `asPng()`: its encoder runs inside the wasm module and
 * was the largest part of a ticket render (about two thirds of the CPU on a
 * text-rich card); native zlib does the same compression in a fraction of
 * that. The PNG container itself is small: signature, IHDR, PLTE (and tRNS)
 * for indexed colour, one IDAT, IEND.
 */
import { deflateSync } from "node:zlib";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const COLOR_TYPE_INDEXED = 3;
const COLOR_TYPE_RGBA = 6;
const MAX_PALETTE_SIZE = 256;
/** Hash table for the palette: 4 slots a colour keeps probe chains short. */
const HASH_BITS = 10;
const HASH_SLOTS = 1 << HASH_BITS;
const FILTER_NONE = 0;
/** Runs of at most this many pixels are written one by one, longer ones by `fill`. */
const SHORT_RUN = 16;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * zlib's fastest level: on a card's palette indices it is about 3.5 times
 * faster than the default level 6 for a file about a quarter larger (a few KB).
 * (`CompressionStream` has no level: it always spends level 6.)
 */
const DEFLATE_LEVEL = 1;

type Scanlines = { colorType: number; rows: Uint8Array<ArrayBuffer>; extraChunks: Uint8Array[] };

/**
 * Palette indices, one byte a pixel, each row behind a "no filter" byte, with
 * the PLTE chunk (and tRNS when a colour is not opaque); null for an image of
 * more than 256 colours. A card is a few flat colours and their anti-aliased
 * edges (about 120 colours on a general card): a quarter of the RGBA bytes
 * for zlib, which costs far more per byte than this pass. Neighbouring pixels
 * are mostly the same colour, so the table is asked once a run of equal pixels.
 */
function indexedScanlines(rgba: Uint8Array, width: number, height: number): Scanlines | null {
  const aligned = rgba.byteOffset % 4 === 0 ? rgba : rgba.slice();
  // Int32, not Uint32: an opaque pixel is then a small negative integer that
  // V8 keeps unboxed, where as a Uint32 it would be a heap number.
  const pixels = new Int32Array(aligned.buffer, aligned.byteOffset, width * height);
  if (pixels.length === 0) return null;
  // Colour → palette index in an open-addressing table (a Map costs more per lookup).
  const slotColour = new Int32Array(HASH_SLOTS);
  const slotIndex = new Int16Array(HASH_SLOTS).fill(-1);
  /** The first pixel of each palette colour, in palette order. */
  const firstPixel: number[] = [];
  const rows = new Uint8Array((width + 1) * height);
  let p = 0;
  let o = 0;
  for (let y = 0; y < height; y++) {
    rows[o++] = FILTER_NONE;
    const rowEnd = p + width;
    while (p < rowEnd) {
      // One lookup a run of equal pixels, then the run's indices.
      const pixel = pixels[p]!;
      let runEnd = p + 1;
      while (runEnd < rowEnd && pixels[runEnd] === pixel) runEnd++;
      let slot = Math.imul(pixel, 0x9e3779b1) >>> (32 - HASH_BITS);
      while (slotIndex[slot] !== -1 && slotColour[slot] !== pixel) slot = (slot + 1) & (HASH_SLOTS - 1);
      if (slotIndex[slot] === -1) {
        if (firstPixel.length === MAX_PALETTE_SIZE) return null;
        slotColour[slot] = pixel;
        slotIndex[slot] = firstPixel.length;
        firstPixel.push(p);
      }
      const index = slotIndex[slot]!;
      // A call to fill costs more than it saves on the short runs of a QR module or a glyph's edge.
      if (runEnd - p > SHORT_RUN) {
        rows.fill(index, o, o + runEnd - p);
        o += runEnd - p;
        p = runEnd;
      } else {
        while (p < runEnd) {
          rows[o++] = index;
          p++;
        }
      }
    }
  }
  const palette = new Uint8Array(firstPixel.length * 3);
  const alphas = new Uint8Array(firstPixel.length);
  firstPixel.forEach((pixel, i) => {
    palette.set(rgba.subarray(pixel * 4, pixel * 4 + 3), i * 3);
    alphas[i] = rgba[pixel * 4 + 3]!;
  });
  const extraChunks = [chunk("PLTE", palette)];
  if (alphas.some((alpha) => alpha !== 255)) extraChunks.push(chunk("tRNS", alphas));
  return { colorType: COLOR_TYPE_INDEXED, rows, extraChunks };
}

/** The RGBA rows whole, each behind a "no filter" byte. */
function rgbaScanlines(rgba: Uint8Array, width: number, height: number): Scanlines {
  const stride = width * 4;
  const rows = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    rows[y * (stride + 1)] = FILTER_NONE;
    rows.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return { colorType: COLOR_TYPE_RGBA, rows, extraChunks: [] };
}

/**
 * Encodes RGBA pixels (as resvg renders them) as an 8-bit PNG: indexed colour
 * when the image has at most 256 colours (lossless: the palette holds the
 * exact RGBA values), otherwise RGBA. No PNG filters: on a flat card zlib does
 * about as well without them, which would cost a pass over every byte in JS.
 */
export function encodeRgbaPng(rgba: Uint8Array, width: number, height: number): Uint8Array<ArrayBuffer> {
  const { colorType, rows, extraChunks } = indexedScanlines(rgba, width, height) ?? rgbaScanlines(rgba, width, height);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, colorType, 0, 0, 0], 8); // bit depth, colour type, compression, filter, interlace

  const parts = [
    new Uint8Array(SIGNATURE),
    chunk("IHDR", header),
    ...extraChunks,
    chunk("IDAT", deflateSync(rows, { level: DEFLATE_LEVEL })),
    chunk("IEND", new Uint8Array(0)),
  ];
  const png = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    png.set(part, offset);
    offset += part.length;
  }
  return png;
}
