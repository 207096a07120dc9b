/**
 * The Worker the tests drive (vitest.config.ts points the pool's `main`
 * here): the production Worker, with its D1 binding wrapped by the test
 * seam (./d1-faults.ts: faults and round-trip counting), settings a test may
 * override (`setTestVars`), and its `waitUntil` work tracked so a test can
 * wait for it (`settleWaitUntil`). Its Queue sends wait until the response
 * has been returned, so work after the response (the webhook outbox's send
 * and its D1 write) is never counted as the request's own
 * (`roundTripsAtLastResponse`), and a request that waited for its own send
 * would never finish. Like the runtime, it hands every request the same env
 * object while the settings stay the same, so the Worker parses its
 * configuration once per `setTestVars` as it does once per isolate in
 * production. Test-only code stays out of src/ and the bundle.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import worker from "../../src/index";
import { d1RoundTrips, withD1Faults } from "./d1-faults";

type Vars = {
  PRERENDER_TICKET_IMAGES?: "true" | "false";
  WEBHOOK_ALLOW_LOOPBACK?: "true" | "false";
  /** A secret or money setting as an operator might leave it (undefined: not set). */
  TICKET_SIGNING_KEY?: string | undefined;
  TICKET_CODE_KEYS?: string | undefined;
  CURRENCY?: string | undefined;
  /** A plain setting as a typo might leave it (test/configuration.test.ts). */
  ADMISSION_EARLY_MINUTES?: string;
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

/** Settles once the response of the request being handled (whose work this is) has been returned. */
const responded = new AsyncLocalStorage<Promise<void>>();

/** `queue` whose sends start only once the sending request's response has been returned. */
function sendingAfterResponse(queue: Queue): Queue {
  const response = () => responded.getStore() ?? Promise.resolve();
  return {
    send: async (...args: Parameters<Queue["send"]>) => {
      await response();
      return queue.send(...args);
    },
    sendBatch: async (...args: Parameters<Queue["sendBatch"]>) => {
      await response();
      return queue.sendBatch(...args);
    },
  } as Queue;
}

let testEnv: { of: Env; overrides: Vars; env: object } | undefined;

/** The env the Worker is given: one object per runtime env and `setTestVars` call. */
function testEnvOf(env: Env): object {
  if (testEnv === undefined || testEnv.of !== env || testEnv.overrides !== overrides) {
    const withOverrides = { ...env, ...overrides, DB: withD1Faults(env.DB), WEBHOOK_QUEUE: sendingAfterResponse(env.WEBHOOK_QUEUE) };
    testEnv = { of: env, overrides, env: withOverrides };
  }
  return testEnv.env;
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
    const response = new Promise<void>((resolve) => (respond = resolve));
    try {
      return await responded.run(response, () => worker.fetch(request, testEnvOf(env), trackingWaitUntil(ctx)));
    } finally {
      atLastResponse = d1RoundTrips();
      respond();
    }
  },
} satisfies ExportedHandler<Env>;
