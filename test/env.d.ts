declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** "on": the D1 fault seam is installed (test/hardening; vitest.config.ts). */
    FAULT_INJECTION: string;
    /** Fuzzing seed and runs per property ("" for the defaults). */
    FUZZ_SEED: string;
    FUZZ_RUNS: string;
  }
}
