/**
 * The bench's distance bundle (npm run bench, "D1 at a distance"): the
 * production Worker with every D1 round trip delayed by BENCH_D1_RTT_MS
 * (a `wrangler dev --var`), as when the database is a network hop away, and
 * counted: each response carries the request's count in
 * `x-bench-d1-round-trips`. None of this is in src/ or the deployed bundle.
 */
import worker from "../src/index";

const ROUND_TRIPS_HEADER = "x-bench-d1-round-trips";

/** The D1 calls that go to the database: a statement's reads and writes, a batch. */
const ROUND_TRIP_METHODS = new Set(["first", "run", "all", "raw", "batch"]);

type BenchEnv = Env & { BENCH_D1_RTT_MS?: string };

/**
 * The binding, and every session and statement it hands out, with each round
 * trip passed through `beforeRoundTrip` first. The real objects go back to
 * D1 (a batch's statements): workerd accepts only its own.
 */
function delayRoundTrips<T extends object>(binding: T, beforeRoundTrip: () => Promise<void>): T {
  const real = new WeakMap<object, object>();
  const unwrap = (value: unknown) => (typeof value === "object" && value !== null ? (real.get(value) ?? value) : value);
  const wrap = <U extends object>(target: U): U => {
    const proxy = new Proxy(target, {
      get(object, name) {
        const member: unknown = Reflect.get(object, name, object);
        if (typeof member !== "function") return member;
        return (...args: unknown[]) => {
          const call = () => member.apply(object, args.map((arg) => (Array.isArray(arg) ? arg.map(unwrap) : unwrap(arg))));
          if (ROUND_TRIP_METHODS.has(String(name))) return beforeRoundTrip().then(call);
          const result: unknown = call();
          return typeof result === "object" && result !== null && !(result instanceof Promise) ? wrap(result) : result;
        };
      },
    });
    real.set(proxy, target);
    return proxy;
  };
  return wrap(binding);
}

export default {
  ...worker,
  async fetch(request, env, ctx) {
    const rttMs = Number(env.BENCH_D1_RTT_MS ?? 0);
    let roundTrips = 0;
    const DB = delayRoundTrips(env.DB, async () => {
      roundTrips += 1;
      if (rttMs > 0) await scheduler.wait(rttMs);
    });
    const response = await worker.fetch(request, { ...env, DB }, ctx);
    const counted = new Response(response.body, response);
    counted.headers.set(ROUND_TRIPS_HEADER, String(roundTrips));
    return counted;
  },
} satisfies ExportedHandler<BenchEnv>;
