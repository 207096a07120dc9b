/**
 * Structured logging: one JSON object per line on the console, which Workers
 * Logs (`[observability]` in wrangler.toml) stores and indexes field by field.
 *
 *   {"level":"info","message":"request","requestId":"…","method":"GET","route":"/v1.1/museum-hours","status":200,"durationMs":12,"account":"box-office-1"}
 *
 * Callers pass only what they mean to log. As a second line of defence, a
 * field whose name suggests a secret or buyer data (password, authorization,
 * secret, token, email, phone, cookie) is written as "[redacted]" at any depth,
 * so a careless `log.info("…", { headers })` cannot leak an Authorization
 * header. See docs/hardening.md ("Logs").
 */

type LogLevel = "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

const SENSITIVE_KEY = /pass(word)?|authori[sz]ation|secret|token|e-?mail|phone|cookie/i;
const REDACTED = "[redacted]";
const MAX_DEPTH = 5;

function redact(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[…]";
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SENSITIVE_KEY.test(key) ? REDACTED : redact(item, depth + 1);
  }
  return out;
}

function write(level: LogLevel, message: string, fields: LogFields): void {
  const line = JSON.stringify({ level, message, ...(redact(fields, 0) as LogFields) });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields: LogFields = {}) => write("info", message, fields),
  warn: (message: string, fields: LogFields = {}) => write("warn", message, fields),
  error: (message: string, fields: LogFields = {}) => write("error", message, fields),
};
