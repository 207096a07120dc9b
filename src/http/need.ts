// What an operation needs of the configuration (configuration/index.ts), or
// the 503 problem that refuses it before anything is written.
import type { Configuration, Needs, Part } from "../configuration";
import { log } from "../platform/log";
import { notConfigured } from "./problem";

/** What the 503 says for each (naming no setting: /healthz and the log do). */
const REFUSALS: Record<keyof Needs, string> = {
  currency: "Amounts cannot be shown right now.",
  codeKeys: "Ticket codes cannot be signed or checked right now.",
  signingKeys: "Ticket codes cannot be signed or checked right now.",
};

/**
 * The parts `names` of `config`, or 503 not-configured for the first that is
 * unusable (logged with why). Asked before anything is written.
 */
export function need<N extends keyof Needs>(config: Configuration, ...names: N[]): Pick<Needs, N> {
  const parts = {} as Record<N, unknown>;
  for (const name of names) {
    const part: Part<unknown> = config[name];
    if (part.problem !== null) {
      log.error("not configured", { setting: name, reason: part.problem });
      throw notConfigured(REFUSALS[name]);
    }
    parts[name] = part.value;
  }
  return parts as Pick<Needs, N>;
}
