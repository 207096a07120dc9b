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

// C0 controls (NUL included), DEL, C1 controls, and the Unicode bidirectional
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): an RTL
// override makes "Tour gnp.exe" print as "Tour exe.png" on a ticket. A
// one-line field also refuses the Unicode line and paragraph separators
// (U+2028, U+2029).
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;
// The same, but a line feed and a tab are text in a multi-line field.
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

/** True when a one-line text holds no control or bidirectional-control character. */
export function isSingleLineText(value: string): boolean {
  return !SINGLE_LINE_FORBIDDEN.test(value);
}

/** True when a multi-line text holds no control character but line feeds and tabs, and no bidirectional control. */
export function isMultiLineText(value: string): boolean {
  return !MULTI_LINE_FORBIDDEN.test(value);
}

export const SINGLE_LINE_MESSAGE = "Must be one line of text: no control or bidirectional-control characters.";
export const MULTI_LINE_MESSAGE =
  "Must be text: no control or bidirectional-control characters except line feeds (\\n) and tabs.";
