declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Fuzzing seed and runs per property ("" for the defaults). */
    FUZZ_SEED: string;
    FUZZ_RUNS: string;
  }
}
