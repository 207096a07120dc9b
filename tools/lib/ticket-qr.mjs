// Reads the text of the QR code in a ticket image (PNG), as a gate's scanner
// would: fast-png decodes the pixels, jsQR finds and reads the code.
import { decode } from "fast-png";
import jsQR from "jsqr";

/** The QR code's text in a ticket PNG (palette, or 8-bit grey, grey+alpha, RGB, RGBA); throws when none is found. */
export function readTicketCode(pngBytes) {
  const png = decode(pngBytes);
  if (!png.palette && (png.depth !== 8 || ![1, 2, 3, 4].includes(png.channels))) {
    throw new Error(`unexpected PNG format: ${png.channels} channels of ${png.depth} bits`);
  }
  const rgba = new Uint8ClampedArray(png.width * png.height * 4);
  for (let p = 0; p < png.width * png.height; p++) {
    // A palette index names its colour; grey is copied into R, G and B.
    const rgb = png.palette
      ? png.palette[png.data[p]]
      : [0, 1, 2].map((c) => png.data[p * png.channels + (png.channels < 3 ? 0 : c)]);
    for (let c = 0; c < 3; c++) rgba[p * 4 + c] = rgb[c];
    rgba[p * 4 + 3] = 255;
  }
  const code = jsQR(rgba, png.width, png.height, { inversionAttempts: "dontInvert" });
  if (!code) throw new Error("no QR code found in the image");
  return code.data;
}
