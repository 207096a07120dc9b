// The image pipeline the service was specified with (docs/ticket-image.md):
// qrcode-svg draws the QR code as SVG, that SVG is part of the card's, and
// resvg rasterises the whole card. These tests fail when the QR code leaves the
// SVG resvg is handed, or when another QR library joins the dependencies.
import { Resvg } from "@resvg/resvg-wasm";
import QRCode from "qrcode-svg";
import { afterEach, describe, expect, it, vi } from "vitest";
import pkg from "../../package.json";
import { codeKeysFromEnv } from "../../src/configuration/code-keys";
import { codeSignerAt, renderTicketPng, signTicketCode } from "../../src/ticket-image";
import { CARD } from "../../src/ticket-image/card";
import { TEST_CODE_KEYS } from "../support/code-keys";
import { EVENT_TICKET, GENERAL_TICKET } from "./fixtures";

const SIGNER = codeSignerAt(codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys: TEST_CODE_KEYS }) }), new Date("2026-12-01T12:00:00Z"));

/** The SVG trees resvg renders from now on, as resvg itself serialises them (usvg's tree, read before each render). */
function recordRenderedTrees(): string[] {
  const trees: string[] = [];
  const render = Resvg.prototype.render;
  vi.spyOn(Resvg.prototype, "render").mockImplementation(function (this: InstanceType<typeof Resvg>) {
    trees.push(this.toString());
    return render.call(this);
  });
  return trees;
}

/**
 * The dark modules ("col,row", quiet zone excluded) of every path in a tree
 * that is drawn as a QR code: black, crisp, scaled to whole-pixel modules,
 * each subpath a rectangle of whole modules (as usvg writes it: the
 * transform on a group, absolute corners `M x y L x+n y L x+n y+h L x y+h Z`).
 */
function qrModulesIn(tree: string): Set<string>[] {
  const found: Set<string>[] = [];
  const scaled = new RegExp(`<g transform="matrix\\(${CARD.qrModule} 0 0 ${CARD.qrModule} \\d+ \\d+\\)">\\s*<path fill="#000000" stroke="none" shape-rendering="crispEdges" d="([^"]+)"\\/>`, "g");
  for (const [, d] of tree.matchAll(scaled)) {
    const rectangles = [...d!.matchAll(/M (\d+) (\d+) L (\d+) \2 L \3 (\d+) L \1 \4 Z/g)];
    expect(rectangles.map((m) => m[0]).join(" ")).toBe(d!.trim());
    const dark = new Set<string>();
    for (const [, x0, y0, x1, y1] of rectangles) {
      for (let y = Number(y0); y < Number(y1); y++) for (let x = Number(x0); x < Number(x1); x++) dark.add(`${x - 4},${y - 4}`);
    }
    found.push(dark);
  }
  return found;
}

/** qrcode-svg's matrix for the code, as "col,row" of its dark modules. */
function darkModules(code: string): Set<string> {
  const dark = new Set<string>();
  new QRCode({ content: code, ecl: "M" }).qrcode.modules.forEach((row, r) => row.forEach((isDark, c) => isDark && dark.add(`${c},${r}`)));
  return dark;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the ticket image pipeline", () => {
  it.each([
    ["general", GENERAL_TICKET],
    ["event, cancelled", { ...EVENT_TICKET, cancelled: true }],
  ])("hands resvg the whole card with the QR code qrcode-svg drew for the code (%s)", async (_kind, ticket) => {
    const code = await signTicketCode(ticket, SIGNER);
    const trees = recordRenderedTrees();
    await renderTicketPng(ticket, code);
    expect(trees).toHaveLength(1);
    const qrCodes = qrModulesIn(trees[0]!);
    expect(qrCodes, "no QR path in the SVG resvg rendered").toHaveLength(1);
    expect(qrCodes[0]).toEqual(darkModules(code));
    // The rest of the card is in the same tree: its text (as outlines) and border.
    expect(trees[0]!.match(/<path /g)!.length).toBeGreaterThan(5);
  });

  it("draws QR codes with qrcode-svg 1.1.0 only: no other QR library among the dependencies, the decoders only in the tests'", () => {
    const pinned = { ...pkg.dependencies, ...pkg.devDependencies } as Record<string, string>;
    expect(pkg.dependencies["qrcode-svg"]).toBe("1.1.0");
    const qrLibraries = Object.keys(pinned).filter((name) => /qr|barcode|zxing|zbar/i.test(name));
    // The decoders read images in tests and tools; they are never in the Worker.
    const decoders = ["jsqr", "zxing-wasm"];
    expect(qrLibraries.sort()).toEqual(["@types/qrcode-svg", ...decoders, "qrcode-svg"].sort());
    for (const decoder of decoders) expect(Object.keys(pkg.dependencies)).not.toContain(decoder);
  });
});
