/**
 * The Worker the tests drive (vitest.config.ts points the pool's `main`
 * here): the production Worker, with its D1 binding wrapped by the test
 * seam (./d1-faults.ts: faults and round-trip counting), settings a test may
 * override (`setTestVars`), and its `waitUntil` work tracked so a test can
 * wait for it (`settleWaitUntil`). Test-only code stays out of src/ and the
 * bundle.
 */
import worker from "../src/index";
import { withD1Faults } from "./d1-faults";

type Vars = { PRERENDER_TICKET_IMAGES?: "true" | "false" };

let overrides: Vars = {};
const pending = new Set<Promise<unknown>>();

/** Overrides settings of wrangler.toml's [vars] for the requests that follow (none: back to the file's). */
export function setTestVars(vars: Vars = {}): void {
  overrides = vars;
}

/** Waits until every `waitUntil` promise of the Worker's requests so far has settled. */
export async function settleWaitUntil(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

function trackingWaitUntil(ctx: ExecutionContext): ExecutionContext {
  return {
    waitUntil(promise: Promise<unknown>) {
      pending.add(promise);
      const forget = () => pending.delete(promise);
      promise.then(forget, forget);
      ctx.waitUntil(promise);
    },
    passThroughOnException: () => ctx.passThroughOnException(),
    props: ctx.props,
  } as ExecutionContext;
}

export default {
  ...worker,
  fetch: (request, env, ctx) =>
    worker.fetch(request, { ...env, ...overrides, DB: withD1Faults(env.DB) }, trackingWaitUntil(ctx)),
} satisfies ExportedHandler<Env>;
