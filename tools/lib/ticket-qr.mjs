// Reads the text of the QR code in a ticket image (PNG), as a gate's scanner
// would: fast-png decodes the pixels, jsQR finds and reads the code.
import { decode } from "fast-png";
import jsQR from "jsqr";

/**
 * The QR code's text in a ticket PNG (8-bit indexed colour, RGB or RGBA, as
 * the Worker renders it: a card of at most 256 colours is indexed); throws
 * when none is found.
 */
export function readTicketCode(pngBytes) {
  const png = decode(pngBytes);
  const { width, height, channels, depth, palette } = png;
  if (depth !== 8 || !(palette ? channels === 1 : channels === 3 || channels === 4)) {
    throw new Error(`unexpected PNG format: ${channels} channels of ${depth} bits${palette ? " with a palette" : ""}`);
  }
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    const color = palette ? palette[png.data[p]] : png.data.subarray(p * channels, p * channels + 3);
    for (let c = 0; c < 3; c++) rgba[p * 4 + c] = color[c];
    rgba[p * 4 + 3] = 255;
  }
  const code = jsQR(rgba, width, height, { inversionAttempts: "dontInvert" });
  if (!code) throw new Error("no QR code found in the image");
  return code.data;
}
