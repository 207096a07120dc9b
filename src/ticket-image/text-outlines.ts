/**
 * The card's text as outline paths, shaped by resvg once per isolate.
 *
 * resvg lays text out on every render (font lookup, shaping, glyph outlines):
 * about as much work as the rest of a card. The lines repeat from ticket to
 * ticket (the museum's name, the ticket types, a day's date, a category, an
 * event's name), so each is shaped once, in a small SVG of its own, and kept
 * as the path resvg made of it (`Resvg#toString`); a card is then drawn from
 * paths alone. The confirmation code is new on every ticket: its face is
 * monospaced (no kerning, every advance the same), so it is kept glyph by
 * glyph and each character placed at its advance, where the line would put it.
 * The card looks the same either way (test/ticket-image/bytes.test.ts pins
 * its bytes, text.test.ts compares lines with their glyphs).
 */
import { Resvg } from "@resvg/resvg-wasm";
import { textElement, type CardLine } from "./card";
import { advanceWidth } from "./card-text";
import { CARD_FONTS } from "./fonts";
import { FONT_FAMILY } from "./font-metrics";

/** Outlined pieces of text, by how they are set and what they say; the least recently used go first. */
const outlines = new Map<string, string>();
/** Far more than a day's cards use (a card has about 40 pieces, most of them shared). */
const MAX_OUTLINES = 4096;

const keyOf = ({ style, text }: CardLine) =>
  `${style.fontSize}|${style.weight}|${style.letterSpacing ?? 0}|${style.monospaced ? "mono" : "text"}|${text}`;

/** What is outlined of a line: the whole line, or each character of a monospaced one at its advance. */
function piecesOf(line: CardLine): CardLine[] {
  if (!line.style.monospaced) return [line];
  let x = line.x;
  return Array.from(line.text, (char) => {
    const piece = { ...line, x, text: char };
    x += advanceWidth(char, line.style);
    return piece;
  });
}

/** Printable ASCII: what a code is written in, shaped at once with a code's first new glyph. */
const ASCII = Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i)).join("");

/** Shapes the pieces of these lines not outlined yet, in one resvg call, and keeps their outlines. */
function outlineMissing(lines: CardLine[]): void {
  const missing = new Map<string, CardLine>();
  const note = (piece: CardLine) => {
    const key = keyOf(piece);
    const known = outlines.get(key);
    if (known === undefined) missing.set(key, piece);
    else {
      // Used again: the newest.
      outlines.delete(key);
      outlines.set(key, known);
    }
  };
  for (const line of lines) {
    const before = missing.size;
    piecesOf(line).forEach(note);
    // A new glyph of a code: every printable ASCII one of its face with it, so the next codes find theirs.
    if (line.style.monospaced && missing.size > before) piecesOf({ ...line, text: ASCII }).forEach(note);
  }
  if (missing.size === 0) return;
  const keys = [...missing.keys()];
  const pieces = keys.map((key, i) => `<g id="p${i}">${textElement({ ...missing.get(key)!, x: 0, y: 0 })}</g>`);
  const resvg = new Resvg(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1" font-family="${FONT_FAMILY}">${pieces.join("")}</svg>`, {
    font: CARD_FONTS,
  });
  let tree: string;
  try {
    tree = resvg.toString();
  } finally {
    resvg.free();
  }
  // usvg writes each group with the paths of its text, in order; a piece that draws nothing (a space) has none.
  const drawn = new Map<number, string>();
  const groups = tree.split(/<g id="p(\d+)"/);
  for (let i = 1; i < groups.length; i += 2) {
    drawn.set(Number(groups[i]), [...groups[i + 1]!.matchAll(/<path [^>]*\bd="([^"]*)"/g)].map((path) => path[1]).join(" "));
  }
  keys.forEach((key, i) => outlines.set(key, drawn.get(i) ?? ""));
  while (outlines.size > MAX_OUTLINES) outlines.delete(outlines.keys().next().value!);
}

/**
 * Draws lines of the card from their outlines, shaping first whichever is new
 * to this isolate: a `drawLine` for buildTicketSvg.
 */
export function outlinedLines(lines: CardLine[]): (line: CardLine) => string {
  outlineMissing(lines);
  return (line) =>
    piecesOf(line)
      .map((piece) => {
        const d = outlines.get(keyOf(piece));
        return d ? `<path transform="translate(${piece.x} ${piece.y})" fill="${piece.fill}" d="${d}"/>` : "";
      })
      .join("");
}
