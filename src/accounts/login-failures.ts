// The failed-login budget (docs/hardening.md): the policy from the settings,
// and the counting the login-throttle middleware does with it.
import { type Db, runStep } from "../platform/batch";
import type { Configuration } from "../configuration";
import { deleteLoginWindowsBefore } from "./statements";

/** How many failed logins a client may have in a window, and how long a window lasts. */
export type LoginFailurePolicy = {
  budget: number;
  windowMs: number;
};

/** Forgets the windows that have passed (run by the Cron Trigger); returns how many. */
export function purgeExpiredLoginFailures(db: Db, windowMs: number, nowMs: number = Date.now()): Promise<number> {
  return runStep(deleteLoginWindowsBefore(db, nowMs - windowMs));
}

/** The budget from the settings (LOGIN_FAILURE_BUDGET, LOGIN_FAILURE_WINDOW_SECONDS; 10 per 300 s by default). */
export function loginFailurePolicy(
  settings: Pick<Configuration["settings"], "LOGIN_FAILURE_BUDGET" | "LOGIN_FAILURE_WINDOW_SECONDS">,
): LoginFailurePolicy {
  return { budget: settings.LOGIN_FAILURE_BUDGET, windowMs: settings.LOGIN_FAILURE_WINDOW_SECONDS * 1000 };
}
