/**
 * The ticket card as SVG: the QR code on the left, human-readable lines on the
 * right; a cancelled ticket says CANCELLED, and that the gate refuses it, in red.
 * Pure string building (no fonts, no wasm): render.ts rasterises it.
 */
import { correction, generate as generateQr } from "lean-qr";
import {
  ADVANCES_BOLD,
  ADVANCES_REGULAR,
  CODE_POINTS,
  FONT_FAMILY,
  MAX_ADVANCE_BOLD,
  MAX_ADVANCE_REGULAR,
  UNITS_PER_EM,
} from "./font-metrics";
import type { TicketType } from "../tickets/schemas";

/**
 * Bump whenever the image's bytes change (the card's look, or how the PNG is
 * encoded): it is part of the image's ETag, so cached images are replaced.
 */
export const TICKET_IMAGE_LAYOUT_VERSION = 5;

export type TicketImageInput = {
  ticketId: string;
  ticketType: TicketType;
  /** YYYY-MM-DD */
  ticketDate: string;
  confirmationCode: string;
  /** Event tickets only. */
  eventName?: string;
  /** A general ticket on a day with timed entry: its entry slot (`HH:mm`). */
  entryTime?: string;
  /** The name of the ticket's category ("Adult", "Child"), as the category is named now. */
  categoryName: string;
  /** The ticket's event was deleted after the sale: the card is void. */
  cancelled: boolean;
};

/** @internal (for tests) */
export const MUSEUM_NAME = "Redocly Museum";

/**
 * Card geometry, in pixels (the PNG is rendered at this size; render.ts
 * paints the QR in it).
 */
export const CARD = {
  width: 720,
  height: 320,
  /** The square the QR code (with its quiet zone) is centred in. */
  qrBox: { x: 20, y: 20, size: 280 },
  /** The QR quiet zone, in modules (the error correction level is M at least). */
  qrQuietZone: 4,
  /** The text column. */
  textX: 336,
  textWidth: 352,
} as const;

/** The card's background: render.ts fills the canvas with it before drawing (resvg's `background`). */
export const CARD_BACKGROUND = "#ffffff";

const COLORS = {
  ink: "#111827",
  muted: "#4b5563",
  faint: "#9ca3af",
  accent: "#1e3a8a",
  border: "#1f2937",
  void: "#dc2626",
};

/**
 * A cancelled ticket is void: a red border, CANCELLED in red where the type
 * would be, and a line saying the gate refuses it. Its QR code still scans on
 * purpose: the gate looks the ticket up and refuses it with a reason
 * (docs/ticket-image.md). No stamp across the card: large translucent lettering
 * cost more than twice a valid card's render.
 */
const VOID_TEXT = "CANCELLED";
const VOID_NOTICE = "Not valid for entry: refused at the gate";

const ELLIPSIS = "\u2026";
const EVENT_NAME_MAX_LINES = 2;
/** Margin for what advance widths miss (kerning, which in Inter mostly narrows a line). */
const WIDTH_SAFETY = 1.03;
/** Text longer than this is cut before measuring (event names are at most 200). */
const MAX_INPUT_CODE_POINTS = 1000;

// ---------------------------------------------------------------------------
// Text helpers

/**
 * Escapes text for XML character data and attribute values.
 * @internal (for tests)
 */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Makes text safe and single-line: drops characters XML 1.0 forbids (control
 * characters, lone surrogates, U+FFFE/U+FFFF) and collapses whitespace.
 * @internal (for tests)
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
/** @internal (for tests) */
export type TextStyle = { fontSize: number; weight: FontWeight; letterSpacing?: number };

const advanceIndex = new Map<number, number>(CODE_POINTS.map((cp, i) => [cp, i]));

function advanceOf(cp: number, weight: FontWeight): number {
  const i = advanceIndex.get(cp);
  const table = weight === "bold" ? ADVANCES_BOLD : ADVANCES_REGULAR;
  const width = i === undefined ? 0 : table[i]!;
  return width > 0 ? width : weight === "bold" ? MAX_ADVANCE_BOLD : MAX_ADVANCE_REGULAR;
}

/**
 * Estimated rendered width in pixels: Inter's advance widths, plus a safety margin.
 * @internal (for tests)
 */
export function textWidth(text: string, style: TextStyle): number {
  let units = 0;
  let count = 0;
  for (const ch of text) {
    units += advanceOf(ch.codePointAt(0)!, style.weight);
    count++;
  }
  return ((units * style.fontSize) / UNITS_PER_EM + (style.letterSpacing ?? 0) * count) * WIDTH_SAFETY;
}

/**
 * The text unchanged when it fits in maxWidth, otherwise cut and ended with "…":
 * at a word boundary when that keeps most of the line, else between characters.
 * @internal (for tests)
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
 * @internal (for tests)
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
 * @internal (for tests)
 */
export function formatTicketDate(date: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return cleanText(date);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return `${WEEKDAYS[weekday]} ${day} ${MONTHS[month - 1] ?? "?"} ${year}`;
}

// ---------------------------------------------------------------------------
// QR code

export type TicketQr = {
  /** QR version (1–40), modules per side without the quiet zone, pixels per module. */
  version: number;
  moduleCount: number;
  moduleSize: number;
  /** Side of the square including the quiet zone (left white: the card's background), in pixels. */
  size: number;
  /** Where the square starts on the card, in pixels. */
  x: number;
  y: number;
  /** True for a dark module at column `col`, row `row` (0-based, quiet zone excluded). */
  isDark(col: number, row: number): boolean;
};

/**
 * The code as a QR code centred in the card's QR box, with whole-pixel
 * modules so the PNG has crisp edges (render.ts paints them into the pixels).
 * lean-qr picks the smallest version at level M with the most compact modes
 * (a compact JWS is mostly byte mode) and raises the level when the version
 * has room, in about a third of the CPU qrcode-svg 1.1.0 took for a
 * version-13 matrix.
 * @public (used by the tools, which bundle this file)
 */
export function buildTicketQr(token: string): TicketQr {
  const { qrBox, qrQuietZone } = CARD;
  const matrix = generateQr(token, { minCorrectionLevel: correction.M });
  const moduleCount = matrix.size;
  const moduleSize = Math.max(1, Math.floor(qrBox.size / (moduleCount + 2 * qrQuietZone)));
  const size = moduleSize * (moduleCount + 2 * qrQuietZone);
  return {
    version: (moduleCount - 17) / 4,
    moduleCount,
    moduleSize,
    size,
    x: qrBox.x + Math.floor((qrBox.size - size) / 2),
    y: qrBox.y + Math.floor((qrBox.size - size) / 2),
    isDark: (col, row) => matrix.get(col, row),
  };
}

// ---------------------------------------------------------------------------
// Card

const STYLES = {
  museum: { fontSize: 15, weight: "bold", letterSpacing: 3 },
  type: { fontSize: 30, weight: "bold" },
  date: { fontSize: 22, weight: "regular" },
  event: { fontSize: 20, weight: "regular" },
  category: { fontSize: 18, weight: "bold" },
  codeLabel: { fontSize: 12, weight: "bold", letterSpacing: 2 },
  code: { fontSize: 20, weight: "bold" },
  voidNotice: { fontSize: 13, weight: "bold" },
} as const satisfies Record<string, TextStyle>;

/** The human-readable lines of the card, already fitted to the text column. */
type CardText = {
  museum: string;
  /** The ticket's type, or CANCELLED. */
  type: string;
  date: string;
  /** The category's name. */
  category: string;
  /** A cancelled ticket only: why it does not admit. */
  voidNotice?: string;
  eventLines: string[];
  codeLabel: string;
  code: string;
};

/** @internal (for tests) */
export function cardText(ticket: TicketImageInput): CardText {
  const w = CARD.textWidth;
  const eventName = ticket.ticketType === "event" ? cleanText(ticket.eventName ?? "") : "";
  return {
    museum: ellipsize(MUSEUM_NAME.toUpperCase(), STYLES.museum, w),
    type: ticket.cancelled ? VOID_TEXT : ticket.ticketType === "event" ? "Special event" : "General entry",
    date: ellipsize(
      formatTicketDate(ticket.ticketDate) + (ticket.entryTime === undefined ? "" : ` · entry ${ticket.entryTime}`),
      STYLES.date,
      w,
    ),
    category: ellipsize(cleanText(ticket.categoryName), STYLES.category, w),
    ...(ticket.cancelled ? { voidNotice: ellipsize(VOID_NOTICE, STYLES.voidNotice, w) } : {}),
    eventLines: eventName === "" ? [] : wrapText(eventName, STYLES.event, w, EVENT_NAME_MAX_LINES),
    codeLabel: "CONFIRMATION CODE",
    code: ellipsize(cleanText(ticket.confirmationCode), STYLES.code, w),
  };
}

function textElement(x: number, y: number, text: string, style: TextStyle, fill: string): string {
  const spacing = style.letterSpacing ? ` letter-spacing="${style.letterSpacing}"` : "";
  const weight = style.weight === "bold" ? "700" : "400";
  return `<text x="${x}" y="${y}" font-size="${style.fontSize}" font-weight="${weight}"${spacing} fill="${fill}">${escapeXml(text)}</text>`;
}

/**
 * The card as an SVG document (CARD.width × CARD.height), drawn on white
 * (CARD_BACKGROUND), its QR box left empty: render.ts paints the modules into
 * the pixels, cheaper than resvg filling a path of a thousand rectangles.
 */
export function buildTicketSvg(ticket: TicketImageInput): string {
  const { width, height, textX } = CARD;
  const text = cardText(ticket);
  const border = ticket.cancelled ? COLORS.void : COLORS.border;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}">`,
    `<rect x="2" y="2" width="${width - 4}" height="${height - 4}" rx="16" fill="none" stroke="${border}" stroke-width="4"/>`,
    `<line x1="${CARD.qrBox.x + CARD.qrBox.size + 14}" y1="22" x2="${CARD.qrBox.x + CARD.qrBox.size + 14}" y2="${height - 22}" stroke="${COLORS.faint}" stroke-width="2" stroke-dasharray="6 6"/>`,
    textElement(textX, 58, text.museum, STYLES.museum, COLORS.accent),
    textElement(textX, 104, text.type, STYLES.type, ticket.cancelled ? COLORS.void : COLORS.ink),
    textElement(textX, 138, text.date, STYLES.date, COLORS.muted),
  ];
  parts.push(textElement(textX, 168, text.category, STYLES.category, COLORS.ink));
  text.eventLines.forEach((line, i) => parts.push(textElement(textX, 198 + i * 26, line, STYLES.event, COLORS.ink)));
  if (text.voidNotice !== undefined) parts.push(textElement(textX, 246, text.voidNotice, STYLES.voidNotice, COLORS.void));
  parts.push(
    textElement(textX, 264, text.codeLabel, STYLES.codeLabel, COLORS.faint),
    textElement(textX, 290, text.code, STYLES.code, COLORS.ink),
    "</svg>",
  );
  return parts.join("");
}
