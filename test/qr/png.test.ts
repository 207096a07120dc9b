import { Resvg } from "@resvg/resvg-wasm";
import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { buildTicketSvg, ensureResvg } from "../../src/tickets/qr";
import { encodeRgbaPng } from "../../src/tickets/qr/png";
import { EVENT_TICKET } from "./fixtures";

/** RGB channels of 8-bit RGB or RGBA pixels. */
function rgbOf(data: ArrayLike<number>, channels: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < data.length; i += channels) out.push(data[i]!, data[i + 1]!, data[i + 2]!);
  return out;
}

describe("encodeRgbaPng", () => {
  it("round-trips every pixel, alpha included, with valid chunk CRCs", async () => {
    const width = 7;
    const height = 5;
    const rgba = new Uint8Array(width * height * 4).map((_, i) => (i * 37) % 256);
    const png = decode(await encodeRgbaPng(rgba, width, height), { checkCrc: true });
    expect([png.width, png.height, png.channels, png.depth]).toEqual([width, height, 4, 8]);
    expect([...png.data]).toEqual([...rgba]);
  });

  it("is lossless against resvg's own encoder on a real ticket card", async () => {
    await ensureResvg();
    const resvg = new Resvg(buildTicketSvg({ ...EVENT_TICKET, cancelled: true }, "MT1.K1.TEST"), {
      background: "#ffffff",
    });
    const image = resvg.render();
    const ours = decode(await encodeRgbaPng(image.pixels, image.width, image.height), { checkCrc: true });
    const theirs = decode(image.asPng());
    image.free();
    resvg.free();
    expect([ours.width, ours.height]).toEqual([theirs.width, theirs.height]);
    expect(rgbOf(ours.data, ours.channels)).toEqual(rgbOf(theirs.data, theirs.channels));
  });
});
