import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations(`${import.meta.dirname}/migrations`);

export default defineConfig({
  plugins: [
    cloudflareTest({
      // The production Worker wrapped with test seams (D1 faults); see test/worker.ts.
      main: "./test/worker.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          // A test-only signing key (the real one is a Worker secret).
          TICKET_SIGNING_KEY: "7e57".repeat(16),
          // Off unless a test turns it on (setTestVars, test/worker.ts): a
          // render after every sale would make the image tests' render counts
          // depend on background work, and the fuzzers' thousands of sales slow.
          PRERENDER_TICKET_IMAGES: "false",
          // test/hardening fuzzing: FUZZ_SEED=… FUZZ_RUNS=… npx vitest run test/hardening
          FUZZ_SEED: process.env.FUZZ_SEED ?? "",
          FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
        },
      },
    }),
  ],
  test: {
    setupFiles: ["./test/setup.ts"],
    // The Worker's access log (one JSON line per request, src/middleware/access-log)
    // would drown the test output; test/hardening/logs.test.ts checks it.
    onConsoleLog: (line) => !line.startsWith('{"level":"info","message":"request"'),
  },
});
