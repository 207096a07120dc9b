// The text on a card reads exactly as its data: every character is drawn as
// its own glyph, none replaced by a ligature or a contextual alternate (Inter's
// turns `2x9` into `2×9`, JetBrains Mono's `->` into an arrow). Each card is
// rasterised twice with the card's own fonts and renderer: as built, and with
// every line split into one <text> per character, placed where the line's
// advance widths put it (resvg shapes each such element alone, so no feature
// can join characters). The two must be the same but where two glyphs touch:
// one shape there, two composited over each other here, which shifts an edge
// pixel by at most a quarter of the range. A replaced glyph changes whole
// strokes. Kerning moves glyphs without replacing them: it is turned off on
// both sides.
import { describe, expect, it } from "vitest";
import { buildTicketSvg, renderTicketPng, type TicketImageInput } from "../../src/ticket-image";
import { advanceWidth, escapeXml, type TextStyle } from "../../src/ticket-image/card-text";
import { rasterise } from "../../src/ticket-image/render";
import { pngToRgba } from "../support/qr-decode";
import { EVENT_TICKET, GENERAL_TICKET } from "./fixtures";

const CODE = "eyJhbGciOiJFZERTQSIsImtpZCI6IlQxIn0.e30.c2ln";

const unescape = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The card's <text> elements: where, how and what. */
function textsOf(svg: string) {
  return [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)"([^>]*)>([^<]*)<\/text>/g)].map(([element, x, y, attributes, content]) => {
    const attribute = (name: string) => new RegExp(` ${name}="([^"]*)"`).exec(attributes!)?.[1];
    const style: TextStyle = {
      fontSize: Number(attribute("font-size")),
      weight: attribute("font-weight") === "700" ? "bold" : "regular",
      ...(attribute("letter-spacing") ? { letterSpacing: Number(attribute("letter-spacing")) } : {}),
      ...(attribute("font-family") === "JetBrains Mono" ? { monospaced: true as const } : {}),
    };
    return { element: element!, x: Number(x), y, attributes: attributes!, text: unescape(content!), style };
  });
}

/** The card as built (kerning off) and character by character; their pixels. */
async function renderBothWays(ticket: TicketImageInput) {
  const svg = buildTicketSvg(ticket, CODE);
  const lines = textsOf(svg);
  let whole = svg;
  let glyphByGlyph = svg;
  for (const { element, x, y, attributes, text, style } of lines) {
    const unkerned = (at: number, content: string) => `<text x="${at}" y="${y}" style="font-kerning:none"${attributes}>${escapeXml(content)}</text>`;
    whole = whole.replace(element, unkerned(x, text));
    const chars = Array.from(text);
    glyphByGlyph = glyphByGlyph.replace(element, chars.map((char, i) => unkerned(x + advanceWidth(chars.slice(0, i).join(""), style), char)).join(""));
  }
  const [a, b] = [await rasterise(whole), await rasterise(glyphByGlyph)];
  return { lines: lines.map((line) => line.text), whole: a.pixels, glyphByGlyph: b.pixels };
}

/** How many pixels differ, and the largest difference in any channel. */
function difference(a: Uint8Array, b: Uint8Array) {
  let pixels = 0;
  let largest = 0;
  for (let i = 0; i < a.length; i += 4) {
    const d = Math.max(Math.abs(a[i]! - b[i]!), Math.abs(a[i + 1]! - b[i + 1]!), Math.abs(a[i + 2]! - b[i + 2]!));
    if (d > 0) pixels++;
    largest = Math.max(largest, d);
  }
  return { pixels, largest };
}

describe("the card's text, glyph by glyph", () => {
  const cards: [string, TicketImageInput][] = [
    ["a confirmation code with an x between digits", { ...GENERAL_TICKET, confirmationCode: "ticket-general-soent7-w2x9j" }],
    ["codes with 2x9, 1x1, fi, ffl", { ...GENERAL_TICKET, confirmationCode: "ticket-2x9-1x1-fi-ffl" }],
    ["a code with what code faces join (->, !=, 0x, www)", { ...GENERAL_TICKET, confirmationCode: "a->b!=0xff-www<=c" }],
    ["an event name and a category name with 2x9, 1x1, fi, ffl", { ...EVENT_TICKET, eventName: "2x9 1x1 fi ffl office waffle -> != 0xF", categoryName: "1x1 fi ffl 2x9" }],
    ["a timed ticket, cancelled", { ...GENERAL_TICKET, entryTime: "10:30", confirmationCode: "ticket-general-1x1fi-ffl2x", cancelled: true }],
  ];

  it.each(cards)("%s: every character drawn as itself", async (_, ticket) => {
    const { lines, whole, glyphByGlyph } = await renderBothWays(ticket);
    expect(lines).toContain(ticket.confirmationCode);
    const { pixels, largest } = difference(whole, glyphByGlyph);
    expect(largest, `${pixels} pixels differ`).toBeLessThanOrEqual(64);
    expect(pixels).toBeLessThanOrEqual(10);
  });
});

describe("the card drawn from its text's outlines", () => {
  it.each([
    ["general", GENERAL_TICKET],
    ["event, cancelled", { ...EVENT_TICKET, eventName: `An event first shaped here ${crypto.randomUUID()}`, cancelled: true }],
  ])("%s: the same pixels as the card with its text shaped by resvg", async (_, ticket) => {
    // Twice: the first render shapes what this isolate has not outlined yet, the second draws it all from outlines.
    for (let time = 0; time < 2; time++) {
      const outlined = pngToRgba(await renderTicketPng(ticket, CODE));
      const shaped = await rasterise(buildTicketSvg(ticket, CODE));
      expect(outlined.rgba.every((value, i) => value === shaped.pixels[i])).toBe(true);
    }
  });
});
