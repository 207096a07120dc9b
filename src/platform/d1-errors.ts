/**
 * D1 errors that mean "the database is unavailable right now, try again",
 * as Cloudflare's D1 documentation lists them (D1_ERROR messages whose
 * recommended action is to retry) and as its retry guidance matches them.
 * Anything else (a constraint violation, a bug) is not retryable and stays a
 * 500.
 */
const UNAVAILABLE = [
  "Network connection lost",
  "storage caused object to be reset",
  "reset because its code was updated",
  "transient issue on remote node",
  "D1 DB is overloaded",
  "exceeded timeout which caused object to be reset",
  "exceeded its memory limit and was reset",
  "exceeded its CPU time limit and was reset",
];

function messages(error: unknown, depth = 0): string[] {
  if (!(error instanceof Error) || depth > 3) return [];
  return [error.message, ...messages((error as Error & { cause?: unknown }).cause, depth + 1)];
}

/** True for an error of D1 that means it is unavailable or overloaded for the moment. */
export function isD1Unavailable(error: unknown): boolean {
  return messages(error).some((message) => UNAVAILABLE.some((fragment) => message.includes(fragment)));
}

/** Seconds a client is asked to wait (`Retry-After`) after a 503 caused by D1. */
export const D1_RETRY_AFTER_SECONDS = 5;

/**
 * SQLite's answers when the code names a table or column the database does
 * not have: the migrations this code needs were not applied.
 */
const SCHEMA_BEHIND = [/\bno such table\b/, /\bno such column\b/, /\bhas no column named\b/];

/** True for an error of D1 that means its schema is behind the code (migrations not applied). */
export function isD1SchemaBehind(error: unknown): boolean {
  return messages(error).some((message) => SCHEMA_BEHIND.some((pattern) => pattern.test(message)));
}
