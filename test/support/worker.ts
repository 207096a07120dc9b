/**
 * The Worker the tests drive (vitest.config.ts points the pool's `main`
 * here): the production Worker, with its D1 binding wrapped by the test
 * seam (./d1-faults.ts: faults and round-trip counting), settings a test may
 * override (`setTestVars`), and its `waitUntil` work tracked so a test can
 * wait for it (`settleWaitUntil`). Its Queue sends wait until the response
 * has been returned, so work after the response (the webhook outbox's send
 * and its D1 write) is never counted as the request's own
 * (`roundTripsAtLastResponse`), and a request that waited for its own send
 * would never finish. Test-only code stays out of src/ and the bundle.
 */
import worker from "../../src/index";
import { d1RoundTrips, withD1Faults } from "./d1-faults";

type Vars = {
  PRERENDER_TICKET_IMAGES?: "true" | "false";
  WEBHOOK_ALLOW_LOOPBACK?: "true" | "false";
  /** A secret or money setting as an operator might leave it (undefined: not set). */
  TICKET_SIGNING_KEY?: string | undefined;
  TICKET_CODE_KEYS?: string | undefined;
  CURRENCY?: string | undefined;
};

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

let atLastResponse = 0;

/** `d1RoundTrips()` when the Worker last returned a response: what came later is its `waitUntil` work. */
export function roundTripsAtLastResponse(): number {
  return atLastResponse;
}

/** `queue` whose sends start only once the request's response has been returned (`responded`). */
function sendingAfter(queue: Queue, responded: Promise<void>): Queue {
  return {
    send: async (...args: Parameters<Queue["send"]>) => {
      await responded;
      return queue.send(...args);
    },
    sendBatch: async (...args: Parameters<Queue["sendBatch"]>) => {
      await responded;
      return queue.sendBatch(...args);
    },
  } as Queue;
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

/** @public (the Worker the tests run: vitest.config.ts `main`) */
export default {
  ...worker,
  async fetch(request, env, ctx) {
    let respond!: () => void;
    const responded = new Promise<void>((resolve) => (respond = resolve));
    const testEnv = { ...env, ...overrides, DB: withD1Faults(env.DB), WEBHOOK_QUEUE: sendingAfter(env.WEBHOOK_QUEUE, responded) };
    try {
      return await worker.fetch(request, testEnv, trackingWaitUntil(ctx));
    } finally {
      atLastResponse = d1RoundTrips();
      respond();
    }
  },
} satisfies ExportedHandler<Env>;
