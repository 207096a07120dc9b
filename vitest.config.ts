import { TEST_CODE_KEYS } from "./test/support/code-keys";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { configDefaults, defineConfig } from "vitest/config";

const migrations = await readD1Migrations(`${import.meta.dirname}/migrations`);

/**
 * The webhook subscribers of test/webhooks: every outbound fetch of the Worker
 * (and of the tests, which share its isolate) arrives here, in Node.
 * - POST https://<host>/answer/<s1>-<s2>-.../<any>: answers the nth request to
 *   that path with the nth status of the list (the last one repeats) and
 *   records it (headers and body).
 * - POST https://<host>/hold/<any>: recorded, then answered only when a test
 *   releases it: GET https://subscriber-log.test/release?path=<path>&status=<s>
 *   answers every request held for that path with that status. One never
 *   released is a subscriber that accepted the request and never answers.
 * - GET https://subscriber-log.test/received?path=<path>: what that path received.
 * Anything else: 599 (no test reaches the real internet).
 */
const received = new Map<string, { headers: Record<string, string>; body: string }[]>();
const held = new Map<string, ((status: number) => void)[]>();
/** Records a request to its path (`host` + `pathname`); returns how many that path has received. */
async function record(url: URL, request: Request): Promise<number> {
  const key = `${url.host}${url.pathname}`;
  // The body first: no await between reading and writing the log, so two
  // deliveries arriving at once (one Queue batch) are both recorded.
  const body = await request.text();
  const log = received.get(key) ?? [];
  log.push({ headers: Object.fromEntries(request.headers), body });
  received.set(key, log);
  return log.length;
}
async function subscribers(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname === "subscriber-log.test" && url.pathname === "/release") {
    const path = url.searchParams.get("path") ?? "";
    const waiting = held.get(path) ?? [];
    held.delete(path);
    for (const answer of waiting) answer(Number(url.searchParams.get("status")));
    return Response.json({ released: waiting.length });
  }
  if (url.hostname === "subscriber-log.test") {
    return Response.json(received.get(url.searchParams.get("path") ?? "") ?? []);
  }
  if (request.method === "POST" && url.pathname.startsWith("/hold/")) {
    await record(url, request);
    const key = `${url.host}${url.pathname}`;
    const status = await new Promise<number>((resolve) => held.set(key, [...(held.get(key) ?? []), resolve]));
    return new Response(null, { status });
  }
  const answer = /^\/answer\/([0-9-]+)\//.exec(url.pathname);
  if (request.method === "POST" && answer) {
    const count = await record(url, request);
    const statuses = answer[1]!.split("-").map(Number);
    const status = statuses[Math.min(count, statuses.length) - 1]!;
    return new Response(null, { status, headers: status >= 300 && status < 400 ? { Location: "https://elsewhere.test/" } : {} });
  }
  return new Response("no such test subscriber", { status: 599 });
}

export default defineConfig({
  plugins: [
    cloudflareTest({
      // The production Worker wrapped with test seams (D1 faults); see test/support/worker.ts.
      main: "./test/support/worker.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          // A test-only signing key (the real one is a Worker secret).
          TICKET_SIGNING_KEY: "7e57".repeat(16),
          // Test-only code keys: T1 signs; T2 is published and signs only from 2999 (rotation).
          TICKET_CODE_KEYS: JSON.stringify({ keys: TEST_CODE_KEYS }),
          // Webhooks (test/webhooks): a test-only sealing key; http and
          // loopback subscribers allowed; retries at once, 3 attempts; the
          // sweep takes every unsent delivery when a test calls it.
          WEBHOOK_SECRET_KEY: btoa("test-only webhook sealing key 32"),
          WEBHOOK_ALLOW_LOOPBACK: "true",
          WEBHOOK_RETRY_BASE_SECONDS: "0",
          WEBHOOK_MAX_ATTEMPTS: "3",
          WEBHOOK_SWEEP_GRACE_SECONDS: "0",
          // Off unless a test turns it on (setTestVars, test/support/worker.ts): a
          // render after every sale would make the image tests' render counts
          // depend on background work, and the fuzzers' thousands of sales slow.
          PRERENDER_TICKET_IMAGES: "false",
          // test/hardening fuzzing: FUZZ_SEED=… FUZZ_RUNS=… npx vitest run test/hardening
          FUZZ_SEED: process.env.FUZZ_SEED ?? "",
          FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
        },
        outboundService: subscribers,
      },
    }),
  ],
  test: {
    // Each file runs in its own workerd, which waits on its D1 and on Node
    // much of the time: a file per core (vitest's default leaves one idle).
    maxWorkers: "100%",
    // A file's first render compiles resvg's and the decoders' wasm: seconds
    // on a loaded machine (files run side by side).
    testTimeout: 30_000,
    setupFiles: ["./test/support/setup.ts"],
    // test/tools holds Node tests of the scripts (node --test, part of `npm test`);
    // the client generator's own check runs with `npm run client:check`.
    exclude: [...configDefaults.exclude, "test/tools/**", "clients/typescript/generator/**"],
    // The Worker's access log (one JSON line per request, src/middleware/access-log)
    // would drown the test output; test/hardening/logs.test.ts checks it.
    onConsoleLog: (line) => !line.startsWith('{"level":"info","message":"request"'),
  },
});
