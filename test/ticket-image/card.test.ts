import QRCode from "qrcode-svg";
import { describe, expect, it } from "vitest";
import { MAX_CODE_LENGTH, TICKET_IMAGE_LAYOUT_VERSION, buildTicketSvg as buildSvg, type TicketImageInput } from "../../src/ticket-image";
import { CARD, MUSEUM_NAME, buildTicketQr, cardText } from "../../src/ticket-image/card";
import { cleanText, ellipsize, escapeXml, formatTicketDate, textWidth, wrapText, type TextStyle } from "../../src/ticket-image/card-text";
import { EVENT_TICKET, GENERAL_TICKET } from "./fixtures";

/** An event ticket's code, as long as a usual one (309 characters). */
const CODE =
  "eyJhbGciOiJFZERTQSIsImtpZCI6IlQxIn0.eyJ0aWQiOiJiODExZjcyMy0xN2IyLTQ0ZjctODk1Mi0yNGIwM2U0M2Q4YTkiLCJ0eXAiOiJldmVudCIsImRhdGUiOiIyMDIzLTA5LTA3IiwiY2F0IjoiYWR1bHQiLCJlaWQiOiIzYmU2NDUzYy0wM2ViLTQzNTctYWU1YS05ODRhMGU1NzRhNTQifQ.vwPOd0SXY8hlVhm01G3Ovnjb8wE3PkfXJmFjeHJnsDgNXxtFrz2WARcXdiv7YjhCpmxKQ1JCeGobFIwYHLbtBQ";
const EVENT_STYLE: TextStyle = { fontSize: 16, weight: "regular" };

const GENERAL = GENERAL_TICKET;
const EVENT = EVENT_TICKET;

/** The card of a ticket, its QR code holding CODE. */
const buildTicketSvg = (ticket: TicketImageInput) => buildSvg(ticket, CODE);

/** A 200-character event name of ordinary words. */
const LONG_NAME = (
  "Pirate Coding Workshop: Treasure Maps, Parrots and the Lost Art of Reading Other People's Code " +
  "Under a Full Moon on the Old Harbour Pier, with Sea Shanties, Grog, Treasure and a Very Long Title Indeed!!!"
).slice(0, 200);

/** The character data of every <text> element, unescaped. */
function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) =>
    m[1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))),
  );
}

describe("ticket card: text helpers", () => {
  it("formats the date as a calendar date, whatever the server's time zone", () => {
    expect(formatTicketDate("2023-09-07")).toBe("Thu 7 Sep 2023");
    expect(formatTicketDate("2023-09-05")).toBe("Tue 5 Sep 2023");
    expect(formatTicketDate("2024-02-29")).toBe("Thu 29 Feb 2024");
    expect(formatTicketDate("2026-01-01")).toBe("Thu 1 Jan 2026");
    expect(formatTicketDate("2025-12-31")).toBe("Wed 31 Dec 2025");
  });

  it("escapes XML and removes characters XML 1.0 forbids", () => {
    expect(escapeXml(`<b>"Tom" & 'Jerry'</b>`)).toBe("&#60;b&#62;&#34;Tom&#34; &#38; &#39;Jerry&#39;&#60;/b&#62;");
    expect(cleanText("a\u0000b\u0008c\u001fd\u007fe\ud800f\uffffg")).toBe("abcdefg");
    expect(cleanText("  line one\nline\ttwo\r\n ")).toBe("line one line two");
    expect(cleanText("Café 🎨 名前")).toBe("Café 🎨 名前");
  });

  it("measures text with Inter's advance widths", () => {
    const narrow = textWidth("iiiiiiiiii", EVENT_STYLE);
    const wide = textWidth("WWWWWWWWWW", EVENT_STYLE);
    expect(narrow).toBeGreaterThan(0);
    expect(wide).toBeGreaterThan(3 * narrow);
    expect(textWidth("abc", { ...EVENT_STYLE, fontSize: 2 * EVENT_STYLE.fontSize })).toBeCloseTo(2 * textWidth("abc", EVENT_STYLE));
    expect(textWidth("abc", { ...EVENT_STYLE, weight: "bold" })).toBeGreaterThan(textWidth("abc", EVENT_STYLE));
    // Characters outside the table count as the widest glyph: never an underestimate.
    expect(textWidth("名", EVENT_STYLE)).toBeGreaterThanOrEqual(textWidth("W", EVENT_STYLE));
  });

  it("ellipsizes only what does not fit", () => {
    expect(ellipsize("Short", EVENT_STYLE, 300)).toBe("Short");
    const cut = ellipsize(LONG_NAME, EVENT_STYLE, 300);
    expect(cut.endsWith("\u2026")).toBe(true);
    expect(textWidth(cut, EVENT_STYLE)).toBeLessThanOrEqual(300);
    expect(LONG_NAME.startsWith(cut.slice(0, -1))).toBe(true);
  });

  it("prefers to cut at a word boundary, and cuts inside a word only when it must", () => {
    const words = "Reading Other People's Code Under a Full Moon";
    for (const width of [200, 250, 300]) {
      const cut = ellipsize(words, EVENT_STYLE, width);
      expect(cut.endsWith("\u2026")).toBe(true);
      expect(textWidth(cut, EVENT_STYLE)).toBeLessThanOrEqual(width);
      expect(words[cut.length - 1]).toBe(" ");
    }
    const oneWord = ellipsize("Supercalifragilisticexpialidocious", EVENT_STYLE, 150);
    expect(oneWord).toMatch(/^Supercalif\w*\u2026$/);
  });

  it("wraps a 200-character event name into at most 3 lines that fit, the last one ellipsized", () => {
    expect(LONG_NAME).toHaveLength(200);
    const lines = wrapText(LONG_NAME, EVENT_STYLE, CARD.textWidth, 3);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(textWidth(line, EVENT_STYLE)).toBeLessThanOrEqual(CARD.textWidth);
    expect(lines[2]!.endsWith("\u2026")).toBe(true);
    expect(LONG_NAME.startsWith(lines.join(" ").slice(0, -1))).toBe(true);
  });

  it("breaks words wider than a line, never splitting a surrogate pair", () => {
    for (const name of ["W".repeat(200), "🎨".repeat(100), `${"x".repeat(50)} ${"名".repeat(150)}`]) {
      const lines = wrapText(name, EVENT_STYLE, CARD.textWidth, 3);
      expect(lines.length).toBeLessThanOrEqual(3);
      for (const line of lines) {
        expect(textWidth(line, EVENT_STYLE)).toBeLessThanOrEqual(CARD.textWidth);
        expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      }
      expect(lines.at(-1)!.endsWith("\u2026")).toBe(true);
    }
  });

  it("keeps a short name on one line", () => {
    expect(wrapText("Pirate Coding Workshop", EVENT_STYLE, CARD.textWidth, 3)).toEqual(["Pirate Coding Workshop"]);
    expect(wrapText("", EVENT_STYLE, CARD.textWidth, 3)).toEqual([]);
  });
});

describe("ticket card: SVG", () => {
  it("shows museum, type, date, category name and confirmation code for a general ticket", () => {
    const svg = buildTicketSvg(GENERAL);
    expect(svg.startsWith(`<svg xmlns="http://www.w3.org/2000/svg" width="${CARD.width}" height="${CARD.height}"`)).toBe(true);
    expect(svg).not.toContain("<?xml");
    expect(texts(svg)).toEqual([
      MUSEUM_NAME.toUpperCase(),
      "General entry",
      "Thu 7 Sep 2023",
      "Adult",
      "CONFIRMATION CODE",
      "ticket-general-e5e5c6-dce78",
    ]);
    expect(svg).toContain('font-family="Inter"');
    // The code in the monospaced face.
    expect(svg).toContain('font-family="JetBrains Mono" font-size="17.6" font-weight="700" fill="#111827">ticket-general-e5e5c6-dce78</text>');
  });

  it("shows a timed ticket's entry time under its date", () => {
    expect(texts(buildTicketSvg({ ...GENERAL, entryTime: "10:30" })).slice(2, 5)).toEqual(["Thu 7 Sep 2023", "Entry 10:30", "Adult"]);
  });

  it("shows the event name on an event ticket, and never on a general one", () => {
    expect(texts(buildTicketSvg(EVENT))).toEqual([
      MUSEUM_NAME.toUpperCase(),
      "Special event",
      "Tue 5 Sep 2023",
      "Child",
      "Pirate Coding Workshop",
      "CONFIRMATION CODE",
      "ticket-event-9c55eg-8v82a",
    ]);
    expect(texts(buildTicketSvg({ ...GENERAL, eventName: "Should not show" }))).not.toContain("Should not show");
  });

  it("prints the category's name on one line, ellipsized when it is long", () => {
    const name = "Concession (students, seniors and jobseekers with a valid card)";
    const text = cardText({ ...GENERAL, categoryName: name });
    expect(text.category.endsWith("\u2026")).toBe(true);
    expect(name.startsWith(text.category.slice(0, -1))).toBe(true);
    expect(texts(buildTicketSvg({ ...GENERAL, categoryName: "Child" }))).toContain("Child");
  });

  it("wraps and ellipsizes a 200-character event name into 3 lines", () => {
    const text = cardText({ ...EVENT, eventName: LONG_NAME });
    expect(text.eventLines).toHaveLength(3);
    expect(text.eventLines[2]!.endsWith("\u2026")).toBe(true);
    const svg = buildTicketSvg({ ...EVENT, eventName: LONG_NAME });
    for (const line of text.eventLines) expect(texts(svg)).toContain(line);
    expect(svg).not.toContain(LONG_NAME);
  });

  it("XML-escapes every piece of text", () => {
    const hostile = { ...EVENT, eventName: `</text><script>"x" </script> & 'more'\u0000`, confirmationCode: "a<b>&c" };
    const svg = buildTicketSvg(hostile);
    expect(svg.includes("<script>")).toBe(false);
    expect(svg.includes("\u0000")).toBe(false);
    expect(svg.includes("&#60;/text&#62;&#60;script&#62;&#34;x&#34;")).toBe(true);
    expect(svg.includes("a&#60;b&#62;&#38;c")).toBe(true);
    // Every piece of text came through whole and unescaped, and nothing broke out of a <text>.
    expect(texts(svg).slice(4, -2).join(" ")).toBe(`</text><script>"x" </script> & 'more'`);
    expect(texts(svg).at(-1)).toBe("a<b>&c");
    expect(svg.match(/<text /g)!.length).toBe(svg.match(/<\/text>/g)!.length);
  });

  it("says CANCELLED, in red, and that the gate refuses it, only when the ticket is cancelled", () => {
    for (const ticket of [GENERAL, EVENT]) {
      const valid = buildTicketSvg(ticket);
      expect(valid.includes("CANCELLED")).toBe(false);
      expect(valid.includes("refused")).toBe(false);
      const svg = buildTicketSvg({ ...ticket, cancelled: true });
      expect(/font-size="24" font-weight="700" fill="#dc2626">CANCELLED<\/text>/.test(svg)).toBe(true);
      expect(texts(svg).slice(-4, -2).join(" ")).toBe("Not valid for entry: refused at the gate");
      expect(svg).toContain('stroke="#dc2626" stroke-width="3"');
      // Everything else the valid card says is still there (date, event, code).
      const kept = texts(valid).filter((line) => !["General entry", "Special event"].includes(line));
      expect(texts(svg)).toEqual(expect.arrayContaining(kept));
    }
  });

  it("has a layout version", () => {
    expect(Number.isInteger(TICKET_IMAGE_LAYOUT_VERSION)).toBe(true);
    expect(TICKET_IMAGE_LAYOUT_VERSION).toBeGreaterThanOrEqual(1);
  });
});

/** The dark modules ("col,row", quiet zone excluded) of a path of runs `M<x>,<y>h<n>v1h-<n>z` in module units. */
function modulesOfRuns(d: string): Set<string> {
  const runs = [...d.matchAll(/M(\d+),(\d+)h(\d+)v1h-\3z/g)];
  // Every subpath is one run, nothing else.
  expect(runs.map((m) => m[0]).join("")).toBe(d);
  const dark = new Set<string>();
  for (const [, x, y, n] of runs) for (let i = 0; i < Number(n); i++) dark.add(`${Number(x) + i - 4},${Number(y) - 4}`);
  return dark;
}

/** qrcode-svg's own drawing of the code: the module squares of its joined path, in the standard orientation (`swap`). */
function modulesQrcodeSvgDraws(code: string): Set<string> {
  const qr = new QRCode({ content: code, ecl: "M", join: true, swap: true, width: 77, height: 77, padding: 4 });
  const d = / d="([^"]*)"/.exec(qr.svg({ container: "none" }))![1]!;
  return new Set([...d.matchAll(/M(\d+),(\d+) V/g)].map(([, x, y]) => `${Number(x) - 4},${Number(y) - 4}`));
}

describe("ticket card: QR code", () => {
  const qr = buildTicketQr(CODE);

  it("is qrcode-svg's version 13 at level M for a 309-character event code: 69×69 modules of 4 px, quiet zone 4 modules, inside the QR box", () => {
    expect(CODE).toHaveLength(309);
    expect(qr).toMatchObject({ version: 13, moduleCount: 69, size: (69 + 8) * 4 });
    // The card is a receipt's line wide (576 dots at 203 dpi): a module is 4 printer dots, unscaled.
    expect(CARD.width).toBe(576);
    expect(CARD.qrModule).toBe(4);
    expect(qr.x).toBeGreaterThanOrEqual(CARD.qrBox.x);
    expect(qr.y).toBeGreaterThanOrEqual(CARD.qrBox.y);
    expect(qr.x + qr.size).toBeLessThanOrEqual(CARD.qrBox.x + CARD.qrBox.size);
    expect(qr.y + qr.size).toBeLessThanOrEqual(CARD.qrBox.y + CARD.qrBox.size);
    // Module edges on whole pixels.
    expect([qr.x % CARD.qrModule, qr.y % CARD.qrModule]).toEqual([0, 0]);
  });

  it("is the path qrcode-svg draws, its squares joined into runs, in the standard orientation, scaled onto the card", () => {
    const placed = new RegExp(`^<path transform="matrix\\(4 0 0 4 ${qr.x} ${qr.y}\\)" fill="#000000" shape-rendering="crispEdges" d="([^"]+)"/>$`);
    const path = placed.exec(qr.svg);
    expect(path, qr.svg.slice(0, 300)).not.toBeNull();
    const drawn = modulesOfRuns(path![1]!);
    expect(drawn).toEqual(modulesQrcodeSvgDraws(CODE));
    // qrcode-svg's matrix: modules[row][col], drawn at x = col, y = row.
    const { modules } = new QRCode({ content: CODE, ecl: "M" }).qrcode;
    const matrix = new Set<string>();
    modules.forEach((row, r) => row.forEach((dark, c) => dark && matrix.add(`${c},${r}`)));
    expect(drawn).toEqual(matrix);
    // The finder patterns' corners are dark, the separators light; the "dark module" sits at column 8, row 4·version + 9.
    for (const [col, row] of [[0, 0], [68, 0], [0, 68], [8, 4 * 13 + 9]]) expect(drawn.has(`${col},${row}`)).toBe(true);
    expect(drawn.has("7,7")).toBe(false);
  });

  it("fits the longest code a ticket may carry: version 14 fills the QR box", () => {
    const longest = buildTicketQr("x".repeat(MAX_CODE_LENGTH));
    expect(longest).toMatchObject({ version: 14, size: CARD.qrBox.size, x: CARD.qrBox.x, y: CARD.qrBox.y });
  });

  it("is part of the card's SVG, and nothing else is drawn over the QR box", () => {
    const svg = buildTicketSvg(GENERAL);
    expect(svg).toContain(qr.svg);
    expect(svg.match(/<path /g)).toHaveLength(1);
    // Every other element is right of the box (perforation, text column) or below it (the code), or the border.
    const perforation = Number(/<line x1="(\d+)"/.exec(svg)![1]);
    expect(perforation).toBeGreaterThan(CARD.qrBox.x + CARD.qrBox.size);
    const placedTexts = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)"[^>]* font-size="([\d.]+)"/g)];
    expect(placedTexts.length).toBeGreaterThanOrEqual(6);
    for (const [, x, y, size] of placedTexts) {
      expect(Number(x) > perforation || Number(y) - Number(size) > CARD.qrBox.y + CARD.qrBox.size, `text at ${x},${y}`).toBe(true);
    }
  });
});
