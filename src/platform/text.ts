// A UTF-16 surrogate without its partner.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when a string is well-formed Unicode: no lone surrogate. JSON can
 * carry one (`"\ud800"`), but it has no UTF-8 form: D1 would store it as
 * three U+FFFD characters, so the text read back would not be the text sent
 * (and could exceed its length limit). Such text is refused instead.
 */
export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

export const NOT_WELL_FORMED_MESSAGE = "Must be valid Unicode text (it holds a lone surrogate).";

// C0 controls (NUL included), DEL, C1 controls, the Unicode line and
// paragraph separators (U+2028, U+2029), and the bidirectional embeddings,
// overrides and isolates (U+202A–U+202E, U+2066–U+2069): an RTL override
// makes "Tour gnp.exe" print as "Tour exe.png" on a ticket.
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;
// The same, but a line feed and a tab are text in a multi-line field (its
// line breaks are \n, so U+2028 and U+2029 stay refused).
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

/** True when a one-line text holds no control or bidirectional-control character. */
export function isSingleLineText(value: string): boolean {
  return !SINGLE_LINE_FORBIDDEN.test(value);
}

/** True when a multi-line text holds no control character but line feeds and tabs, and no bidirectional control. */
export function isMultiLineText(value: string): boolean {
  return !MULTI_LINE_FORBIDDEN.test(value);
}

/**
 * The same rules as JSON Schema `pattern`s (ECMA-262, as the OpenAPI
 * document publishes them): every character outside the forbidden class.
 */
export const SINGLE_LINE_PATTERN = `^[^${SINGLE_LINE_FORBIDDEN.source.slice(1, -1)}]*$`;
export const MULTI_LINE_PATTERN = `^[^${MULTI_LINE_FORBIDDEN.source.slice(1, -1)}]*$`;

export const SINGLE_LINE_MESSAGE = "Must be one line of text: no control or bidirectional-control characters.";
export const MULTI_LINE_MESSAGE =
  "Must be text: no control, line-separator or bidirectional-control characters except line feeds (\\n) and tabs.";

// Unicode's default-ignorable code points: characters that display as
// nothing (U+00AD, U+034F, U+115F, U+1160, U+180B–U+180F, U+200B–U+200F,
// U+2060–U+206F, U+3164, U+FE00–U+FE0F, U+FEFF, U+FFA0, tag characters
// U+E0000–U+E007F, ...). They make look-alike names, hide text (tag
// characters spell invisible ASCII), and make a blank name look filled.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
// The few uses visible text needs, taken out before the check: a zero-width
// joiner inside an emoji (👩‍👩‍👧, 🏳️‍🌈), an emoji or text presentation
// selector after a visible character (❤️), an ideographic variation selector
// after a Han ideograph (a Japanese name's variant), and the tag sequences
// of the flags of England, Scotland and Wales.
const INVISIBLE_IN_USE = new RegExp(
  [
    String.raw`(?<=\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?)\u200D(?=\p{Extended_Pictographic})`,
    String.raw`(?<=[^\p{Default_Ignorable_Code_Point}])[\uFE0E\uFE0F]`,
    String.raw`(?<=\p{Script=Han})[\u{E0100}-\u{E01EF}]`,
    String.raw`(?<=\u{1F3F4})\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}`,
  ].join("|"),
  "gu",
);

/**
 * The first invisible character of a text (as `U+200B`), or null when it
 * has none but those visible text needs (see INVISIBLE_IN_USE).
 */
export function firstInvisibleCharacter(value: string): string | null {
  const found = INVISIBLE.exec(value.replace(INVISIBLE_IN_USE, ""));
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}` : null;
}

export const invisibleCharacterMessage = (codePoint: string) =>
  `Must not contain invisible characters (found ${codePoint}): zero-width, filler, soft-hyphen, tag and similar characters are refused.`;

// U+2800 (Braille blank) looks like a space but is not one.
const VISIBLE = /[^\s\p{Default_Ignorable_Code_Point}\u2800]/u;

/** True when a text holds something to see: not only whitespace and invisible characters. */
export function isNotBlank(value: string): boolean {
  return VISIBLE.test(value);
}
