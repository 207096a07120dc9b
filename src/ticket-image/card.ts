/**
 * The ticket card as SVG: the QR code on the left with the confirmation code
 * under it, human-readable lines on the right; a cancelled ticket says
 * CANCELLED, and that the gate refuses it, in red. Pure string building (no
 * fonts, no wasm): render.ts rasterises it, QR code included.
 */
import QRCode from "qrcode-svg";
import { cleanText, ellipsize, escapeXml, formatTicketDate, wrapText, type TextStyle } from "./card-text";
import { CODE_FONT_FAMILY, FONT_FAMILY } from "./font-metrics";
import type { TicketType } from "../tickets/schemas";

/**
 * Bump whenever the image's bytes change (the card's look, or how the PNG is
 * encoded): it is part of the image's ETag, so cached images are replaced.
 */
export const TICKET_IMAGE_LAYOUT_VERSION = 7;

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
 * Card geometry, in pixels (the PNG is rendered at this size).
 *
 * The card is as wide as an 80 mm receipt's line (576 printer dots at
 * 203 dpi), so a kiosk prints it dot for dot, unscaled; screens scale it as
 * they scale any image. The QR code is drawn at 4 pixels (dots) a module. The
 * box holds the largest code the service signs (version 14 at level M: 73
 * modules and the 4-module quiet zone on each side, 81 × 4 = 324 px);
 * smaller versions are centred in it, their module grid on multiples of 4 px.
 * @internal (for tests and the tools)
 */
export const CARD = {
  width: 576,
  height: 400,
  /** The square the QR code (with its quiet zone) is centred in. */
  qrBox: { x: 16, y: 16, size: 324 },
  /** Pixels a QR module. */
  qrModule: 4,
  /** The QR quiet zone, in modules. */
  qrQuietZone: 4,
  /** QR error correction: M (15 % of the codewords), what a printed code needs. */
  qrEcl: "M",
  /** The confirmation code and its label, under the QR code, left-aligned with its modules. */
  codeX: 32,
  codeWidth: 308,
  /** The perforation between the QR code and the text column. */
  perforationX: 352,
  /** The text column, right of the perforation. */
  textX: 364,
  textWidth: 196,
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
const VOID_NOTICE = ["Not valid for entry:", "refused at the gate"];

const EVENT_NAME_MAX_LINES = 3;

// ---------------------------------------------------------------------------
// QR code

/** @public (buildTicketQr's result) */
export type TicketQr = {
  /** QR version (1–40) and modules per side without the quiet zone. */
  version: number;
  moduleCount: number;
  /** Side of the square including the quiet zone, in pixels. */
  size: number;
  /** Where the square starts on the card, in pixels. */
  x: number;
  y: number;
  /** The dark modules as one path, in module units with the quiet zone, placed and scaled onto the card. */
  svg: string;
};

const DIGIT_0 = "0".charCodeAt(0);

/**
 * The path qrcode-svg draws, its module squares joined into one rectangle
 * per horizontal run of dark modules: the same dark area in about a fifth of
 * the edges, which is what resvg's fill costs (a square a module took as long
 * to fill as the rest of the card to draw).
 *
 * Each square qrcode-svg 1.1.0 draws with `join: true` is
 * `M<x>,<y> V<y+1> H<x+1> V<y> H<x> Z`, and only a square has an `M`: the
 * two numbers after it are its corner, read digit by digit (a regular
 * expression's matches cost about twice the rest of this function).
 */
function joinRuns(squaresPath: string, units: number): string {
  const dark = new Uint8Array(units * units);
  const digitAt = (i: number) => {
    const digit = squaresPath.charCodeAt(i) - DIGIT_0;
    return digit >= 0 && digit <= 9 ? digit : -1;
  };
  for (let i = squaresPath.indexOf("M"); i !== -1; i = squaresPath.indexOf("M", i)) {
    let x = 0;
    let y = 0;
    for (i++; digitAt(i) !== -1; i++) x = x * 10 + digitAt(i);
    for (i++; digitAt(i) !== -1; i++) y = y * 10 + digitAt(i);
    dark[y * units + x] = 1;
  }
  let path = "";
  for (let y = 0; y < units; y++) {
    for (let x = 0; x < units; x++) {
      if (!dark[y * units + x]) continue;
      const start = x;
      while (x + 1 < units && dark[y * units + x + 1]) x++;
      path += `M${start},${y}h${x - start + 1}v1h-${x - start + 1}z`;
    }
  }
  return path;
}

/**
 * The code as a QR code (qrcode-svg 1.1.0), centred in the card's QR box at
 * CARD.qrModule pixels a module.
 *
 * - qrcode-svg encodes in byte mode (the code is ASCII) and picks the
 *   smallest version that holds the code at level M: 11–14 for the codes the
 *   service signs.
 * - It draws the dark modules as one path (`join: true`), in the standard
 *   orientation (`swap: true`: without it qrcode-svg 1.1.0 draws the matrix
 *   transposed, a mirror image that lenient decoders accept and strict
 *   scanners may not), with the 4-module quiet zone, in module units (its
 *   width is the module count with the quiet zone, so every coordinate is a
 *   small integer). Its background rectangle is not used: the card is white.
 * - That path, its squares joined into runs (joinRuns), is scaled onto the
 *   card by a transform: whole-pixel module edges, drawn crisp. No nested
 *   `<svg>`: resvg clips one through a full-canvas mask.
 * @public (used by the tools, which bundle this file)
 */
export function buildTicketQr(code: string): TicketQr {
  const { qrBox, qrModule, qrQuietZone, qrEcl } = CARD;
  const qr = new QRCode({ content: code, ecl: qrEcl, padding: qrQuietZone, join: true, swap: true, pretty: false });
  const moduleCount = qr.qrcode.getModuleCount();
  const units = moduleCount + 2 * qrQuietZone;
  // svg() reads the size when it draws: one unit a module.
  qr.options.width = units;
  qr.options.height = units;
  const squares = / d="([^"]*)"/.exec(qr.svg({ container: "none" }))![1]!;
  const size = units * qrModule;
  // Offsets are multiples of the module size (qrBox.size - size is a multiple of 4 modules).
  const x = qrBox.x + (qrBox.size - size) / 2;
  const y = qrBox.y + (qrBox.size - size) / 2;
  return {
    version: qr.qrcode.typeNumber,
    moduleCount,
    size,
    x,
    y,
    svg: `<path transform="matrix(${qrModule} 0 0 ${qrModule} ${x} ${y})" fill="#000000" shape-rendering="crispEdges" d="${joinRuns(squares, units)}"/>`,
  };
}

// ---------------------------------------------------------------------------
// Card

const STYLES = {
  museum: { fontSize: 12, weight: "bold", letterSpacing: 2.4 },
  type: { fontSize: 24, weight: "bold" },
  date: { fontSize: 17.6, weight: "regular" },
  event: { fontSize: 14.4, weight: "regular" },
  category: { fontSize: 14.4, weight: "bold" },
  codeLabel: { fontSize: 9.6, weight: "bold", letterSpacing: 1.6 },
  code: { fontSize: 17.6, weight: "bold", monospaced: true },
  voidNotice: { fontSize: 11.2, weight: "bold" },
} as const satisfies Record<string, TextStyle>;

/** Where the code's baseline sits (its label 24 px above), under the QR box. */
const CODE_BASELINE = CARD.qrBox.y + CARD.qrBox.size + 43;

/** The human-readable lines of the card, already fitted to their columns. */
type CardText = {
  museum: string;
  /** The ticket's type, or CANCELLED. */
  type: string;
  date: string;
  /** A timed ticket only: its entry time. */
  entry?: string;
  /** The category's name. */
  category: string;
  eventLines: string[];
  /** A cancelled ticket only: why it does not admit. */
  voidLines: string[];
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
    date: ellipsize(formatTicketDate(ticket.ticketDate), STYLES.date, w),
    ...(ticket.entryTime === undefined ? {} : { entry: ellipsize(`Entry ${cleanText(ticket.entryTime)}`, STYLES.date, w) }),
    category: ellipsize(cleanText(ticket.categoryName), STYLES.category, w),
    eventLines: eventName === "" ? [] : wrapText(eventName, STYLES.event, w, EVENT_NAME_MAX_LINES),
    voidLines: ticket.cancelled ? VOID_NOTICE.map((line) => ellipsize(line, STYLES.voidNotice, w)) : [],
    codeLabel: "CONFIRMATION CODE",
    code: ellipsize(cleanText(ticket.confirmationCode), STYLES.code, CARD.codeWidth),
  };
}

/** A line of text as the card places it: where its baseline starts, what it says, how it is set, its colour. */
export type CardLine = { x: number; y: number; text: string; style: TextStyle; fill: string };

/** The card's lines of text, fitted and placed. */
export function cardLines(ticket: TicketImageInput): CardLine[] {
  const { textX, codeX } = CARD;
  const text = cardText(ticket);
  const line = (x: number, y: number, words: string, style: TextStyle, fill: string): CardLine => ({ x, y, text: words, style, fill });
  const lines = [
    line(textX, 46, text.museum, STYLES.museum, COLORS.accent),
    line(textX, 83, text.type, STYLES.type, ticket.cancelled ? COLORS.void : COLORS.ink),
    line(textX, 110, text.date, STYLES.date, COLORS.muted),
  ];
  // The lines below the date follow one another: a timed ticket's entry time, the category, the event's name.
  let y = 110;
  if (text.entry !== undefined) lines.push(line(textX, (y += 24), text.entry, STYLES.date, COLORS.muted));
  lines.push(line(textX, (y += 27), text.category, STYLES.category, COLORS.ink));
  y += 5;
  for (const words of text.eventLines) lines.push(line(textX, (y += 19), words, STYLES.event, COLORS.ink));
  y += 11;
  for (const words of text.voidLines) lines.push(line(textX, (y += 16), words, STYLES.voidNotice, COLORS.void));
  lines.push(line(codeX, CODE_BASELINE - 24, text.codeLabel, STYLES.codeLabel, COLORS.faint), line(codeX, CODE_BASELINE, text.code, STYLES.code, COLORS.ink));
  return lines.filter((placed) => placed.text !== "");
}

/** A line as a `<text>` element, for resvg to shape. */
export function textElement({ x, y, text, style, fill }: CardLine): string {
  const family = style.monospaced ? ` font-family="${CODE_FONT_FAMILY}"` : "";
  const spacing = style.letterSpacing ? ` letter-spacing="${style.letterSpacing}"` : "";
  const weight = style.weight === "bold" ? "700" : "400";
  return `<text x="${x}" y="${y}"${family} font-size="${style.fontSize}" font-weight="${weight}"${spacing} fill="${fill}">${escapeXml(text)}</text>`;
}

/**
 * The whole card as an SVG document (CARD.width × CARD.height), QR code
 * included, drawn on white (CARD_BACKGROUND). Its lines of text are drawn by
 * `drawLine`: `<text>` elements unless the caller has them outlined already.
 */
export function buildTicketSvg(
  ticket: TicketImageInput,
  code: string,
  drawLine: (line: CardLine) => string = textElement,
  lines: CardLine[] = cardLines(ticket),
): string {
  const { width, height, perforationX } = CARD;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}">`,
    `<rect x="1.5" y="1.5" width="${width - 3}" height="${height - 3}" rx="13" fill="none" stroke="${ticket.cancelled ? COLORS.void : COLORS.border}" stroke-width="3"/>`,
    buildTicketQr(code).svg,
    `<line x1="${perforationX}" y1="18" x2="${perforationX}" y2="${height - 18}" stroke="${COLORS.faint}" stroke-width="2" stroke-dasharray="5 5"/>`,
    ...lines.map(drawLine),
    "</svg>",
  ].join("");
}
