// SQL text for `wrangler d1 execute`, which takes no bound parameters: every
// value that reaches SQL text goes through one of these.
import { UsageError } from "./cli.mjs";

/** A SQL string literal: quotes doubled; NUL refused (SQLite would end the string there). */
export function sqlString(value) {
  if (typeof value !== "string") throw new TypeError(`not a string: ${String(value)}`);
  if (value.includes("\0")) throw new UsageError("NUL characters are not allowed");
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlInteger(value) {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${String(value)}`);
  return String(value);
}
