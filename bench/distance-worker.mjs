// The bench's distance bundle (bench/build.mjs): the built Worker, copied
// next to this file as index.js, with every D1 round trip delayed by
// BENCH_D1_RTT_MS (a Worker variable), as when the database is a network hop
// away, and counted: each response carries the count in
// `x-bench-d1-round-trips`. Never deployed.
import worker from "./index.js";

/** The D1 calls that go to the database: a statement's reads and writes, a batch. */
const ROUND_TRIP_METHODS = new Set(["first", "run", "all", "raw", "batch"]);

/**
 * The binding, and every session and statement it hands out, with each round
 * trip passed through `beforeRoundTrip` first. The real objects go back to D1
 * (a batch's statements): workerd accepts only its own.
 */
function delayRoundTrips(binding, beforeRoundTrip) {
  const real = new WeakMap();
  const unwrap = (value) => (typeof value === "object" && value !== null ? (real.get(value) ?? value) : value);
  const wrap = (target) => {
    const proxy = new Proxy(target, {
      get(object, name) {
        const member = Reflect.get(object, name, object);
        if (typeof member !== "function") return member;
        return (...args) => {
          const call = () => member.apply(object, args.map((arg) => (Array.isArray(arg) ? arg.map(unwrap) : unwrap(arg))));
          if (ROUND_TRIP_METHODS.has(String(name))) return beforeRoundTrip().then(call);
          const result = call();
          return typeof result === "object" && result !== null && !(result instanceof Promise) ? wrap(result) : result;
        };
      },
    });
    real.set(proxy, target);
    return proxy;
  };
  return wrap(binding);
}

/** @public (the Worker bench/build.mjs bundles from this file) */
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
    counted.headers.set("x-bench-d1-round-trips", String(roundTrips));
    return counted;
  },
};
