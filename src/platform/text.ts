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
