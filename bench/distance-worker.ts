/**
 * The bench's distance bundle (npm run bench, "D1 at a distance"): the
 * production Worker with every D1 round trip delayed by BENCH_D1_RTT_MS
 * (a `wrangler dev --var`), as when the database is a network hop away, and
 * counted: each response carries the request's count in
 * `x-bench-d1-round-trips`. The wrapper is the test worker's D1 seam
 * (test/d1-faults.ts); none of this is in src/ or the deployed bundle.
 */
import worker from "../src/index";
import { withD1Faults } from "../test/d1-faults";

const ROUND_TRIPS_HEADER = "x-bench-d1-round-trips";

type BenchEnv = Env & { BENCH_D1_RTT_MS?: string };

export default {
  ...worker,
  async fetch(request, env, ctx) {
    const rttMs = Number(env.BENCH_D1_RTT_MS ?? 0);
    let roundTrips = 0;
    const DB = withD1Faults(env.DB, async () => {
      roundTrips += 1;
      if (rttMs > 0) await scheduler.wait(rttMs);
    });
    const response = await worker.fetch(request, { ...env, DB }, ctx);
    const counted = new Response(response.body, response);
    counted.headers.set(ROUND_TRIPS_HEADER, String(roundTrips));
    return counted;
  },
} satisfies ExportedHandler<BenchEnv>;
