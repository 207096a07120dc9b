// Reads the QR code in a ticket image (PNG) as a gate's scanner would:
// fast-png decodes the pixels, jsQR finds and reads the code. Used by the
// scripts (Node) and by the tests (workerd) alike.
import { decode, hasPngSignature } from "fast-png";
import jsQR from "jsqr";

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

/** The QR code's text in a ticket PNG; throws when none is found. */
export function readTicketCode(pngBytes) {
  const code = decodeQrPng(pngBytes);
  if (!code) throw new Error("no QR code found in the image");
  return code.data;
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
