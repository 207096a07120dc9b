import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { existsSync, readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { parse as parseYaml } from "yaml";

const migrations = await readD1Migrations(`${import.meta.dirname}/migrations`);

// The reference API description for test/contract, read here in Node (workerd
// has no file system) and handed over as JSON; "" when ../shared/reference is
// absent (a clone used outside this workspace), and the test then says so.
// MUSEUM_REFERENCE_DIR points elsewhere (the scripts/e2e*.mjs honour it too).
const referenceDir = process.env.MUSEUM_REFERENCE_DIR ?? `${import.meta.dirname}/../shared/reference`;
const referencePath = `${referenceDir}/museum-openapi-1.1.1.yaml`;
const referenceOpenApi = existsSync(referencePath) ? JSON.stringify(parseYaml(readFileSync(referencePath, "utf8"))) : "";

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
          REFERENCE_OPENAPI: referenceOpenApi,
          REFERENCE_OPENAPI_PATH: referencePath,
          // Under CI the contract test fails instead of skipping without the reference.
          TEST_CI: process.env.CI ?? "",
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
