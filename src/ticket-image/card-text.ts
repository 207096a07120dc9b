/**
 * Fitting the card's text to its columns: what a line of text is set in, how
 * wide it runs (estimated from the faces' own advance widths, no shaping),
 * cut with an ellipsis or wrapped at spaces; text made safe for the SVG; the
 * ticket's date as printed. Pure string work: card.ts places the lines.
 */
import {
  ADVANCES_BOLD,
  ADVANCES_REGULAR,
  CODE_ADVANCE,
  CODE_UNITS_PER_EM,
  CODE_POINTS,
  MAX_ADVANCE_BOLD,
  MAX_ADVANCE_REGULAR,
  UNITS_PER_EM,
} from "./font-metrics";

const ELLIPSIS = "\u2026";
/** Margin for what advance widths miss (kerning, which in Inter mostly narrows a line). */
const WIDTH_SAFETY = 1.03;
/** Text longer than this is cut before measuring (event names are at most 200). */
const MAX_INPUT_CODE_POINTS = 1000;


/**
 * Escapes text for XML character data and attribute values.
 */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Makes text safe and single-line: drops characters XML 1.0 forbids (control
 * characters, lone surrogates, U+FFFE/U+FFFF) and collapses whitespace.
 */
export function cleanText(text: string): string {
  let out = "";
  for (const ch of Array.from(text).slice(0, MAX_INPUT_CODE_POINTS)) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x09 || cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029) out += " ";
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) continue;
    else if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0xfffe || cp === 0xffff) continue;
    else out += ch;
  }
  return out.replace(/\s+/g, " ").trim();
}

type FontWeight = "regular" | "bold";
/** How a line is set: in Inter (regular or bold), or in the code's monospaced face. */
export type TextStyle = { fontSize: number; weight: FontWeight; letterSpacing?: number; monospaced?: true };

const advanceIndex = new Map<number, number>(CODE_POINTS.map((cp, i) => [cp, i]));

function advanceOf(cp: number, weight: FontWeight): number {
  const i = advanceIndex.get(cp);
  const table = weight === "bold" ? ADVANCES_BOLD : ADVANCES_REGULAR;
  const width = i === undefined ? 0 : table[i]!;
  return width > 0 ? width : weight === "bold" ? MAX_ADVANCE_BOLD : MAX_ADVANCE_REGULAR;
}

/**
 * Where the pen ends after the text, in pixels: the face's advance widths
 * and the letter spacing, no kerning.
 */
export function advanceWidth(text: string, style: TextStyle): number {
  let ems = 0;
  let count = 0;
  for (const ch of text) {
    ems += style.monospaced ? CODE_ADVANCE / CODE_UNITS_PER_EM : advanceOf(ch.codePointAt(0)!, style.weight) / UNITS_PER_EM;
    count++;
  }
  return ems * style.fontSize + (style.letterSpacing ?? 0) * count;
}

/**
 * Estimated rendered width in pixels: the advance widths plus a safety margin.
 * @internal (for tests)
 */
export function textWidth(text: string, style: TextStyle): number {
  return advanceWidth(text, style) * WIDTH_SAFETY;
}

/**
 * The text unchanged when it fits in maxWidth, otherwise cut and ended with "…":
 * at a word boundary when that keeps most of the line, else between characters.
 */
export function ellipsize(text: string, style: TextStyle, maxWidth: number): string {
  if (textWidth(text, style) <= maxWidth) return text;
  const chars = Array.from(text);
  const trim = (s: string) => s.replace(/[\s,;:\-\u2013\u2014]+$/, "");
  // Cut characters until the rest plus an ellipsis fits.
  for (let keep = chars.length - 1; keep > 0; keep--) {
    const head = chars.slice(0, keep).join("");
    if (textWidth(trim(head) + ELLIPSIS, style) > maxWidth) continue;
    const space = head.lastIndexOf(" ");
    const midWord = chars[keep] !== " ";
    const atWord = midWord && space >= head.length * 0.7 ? trim(head.slice(0, space)) : trim(head);
    return atWord + ELLIPSIS;
  }
  return ELLIPSIS;
}

/**
 * Wraps text at spaces into at most maxLines lines of at most maxWidth pixels;
 * a word wider than a line is broken between characters; text left over after
 * the last line is cut and the last line ends with "…".
 */
export function wrapText(text: string, style: TextStyle, maxWidth: number, maxLines: number): string[] {
  const words = text.split(" ").filter((w) => w !== "");
  const lines: string[] = [];
  let current = "";
  for (const word of words) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (textWidth(candidate, style) <= maxWidth) {
      current = candidate;
      continue;
    }
    if (current !== "") lines.push(current);
    current = word;
    // Break a word that is wider than a whole line.
    while (textWidth(current, style) > maxWidth && Array.from(current).length > 1) {
      const chars = Array.from(current);
      let n = chars.length - 1;
      while (n > 1 && textWidth(chars.slice(0, n).join(""), style) > maxWidth) n--;
      lines.push(chars.slice(0, n).join(""));
      current = chars.slice(n).join("");
      if (lines.length > maxLines) break;
    }
    if (lines.length > maxLines) break;
  }
  if (current !== "") lines.push(current);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  // The last kept line plus a start of what follows never fits: ellipsize cuts it.
  kept[maxLines - 1] = ellipsize(`${kept[maxLines - 1]} ${lines[maxLines]}`, style, maxWidth);
  return kept;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * "2023-09-07" → "Thu 7 Sep 2023": a calendar date, so no time zone is involved.
 */
export function formatTicketDate(date: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return cleanText(date);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return `${WEEKDAYS[weekday]} ${day} ${MONTHS[month - 1] ?? "?"} ${year}`;
}
