declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Fuzzing seed and runs per property ("" for the defaults). */
    FUZZ_SEED: string;
    FUZZ_RUNS: string;
  }
}

/** Vite's `import.meta.glob`, eager form (test/architecture reads src/ through it). */
interface ImportMeta {
  glob<T>(pattern: string, options: { query: string; import: string; eager: true }): Record<string, T>;
}
