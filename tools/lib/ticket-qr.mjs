// Reads the text of the QR code in a ticket image (PNG), as a gate's scanner
// would: fast-png decodes the pixels, jsQR finds and reads the code.
import { decode } from "fast-png";
import jsQR from "jsqr";

/** The QR code's text in a ticket PNG (8-bit RGB or RGBA, as the Worker renders it); throws when none is found. */
export function readTicketCode(pngBytes) {
  const png = decode(pngBytes);
  if (png.depth !== 8 || (png.channels !== 3 && png.channels !== 4)) {
    throw new Error(`unexpected PNG format: ${png.channels} channels of ${png.depth} bits`);
  }
  const rgba = new Uint8ClampedArray(png.width * png.height * 4);
  for (let p = 0; p < png.width * png.height; p++) {
    for (let c = 0; c < 3; c++) rgba[p * 4 + c] = png.data[p * png.channels + c];
    rgba[p * 4 + 3] = 255;
  }
  const code = jsQR(rgba, png.width, png.height, { inversionAttempts: "dontInvert" });
  if (!code) throw new Error("no QR code found in the image");
  return code.data;
}
