// One autocannon run, with exact latencies: autocannon's own histogram keeps
// whole milliseconds, too coarse for routes that answer in a few, so every
// response time (float ms, from process.hrtime) is also kept here.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * Runs autocannon against `base` and returns
 * { requests, seconds, rps, p50, p90, p95, p99, max, mean, statuses, unexpected, errors, timeouts }.
 * `expect` lists the status codes that count as success; any other status,
 * socket error or timeout is an error. `sequence` (n > 1): each connection's
 * requests are steps of n, and the latencies are those of whole sequences
 * (the sum of their steps' response times); `requests` still counts responses.
 * `rate`: at most this many requests a second in all (autocannon's overallRate).
 */
export async function runLoad({ base, connections, duration, amount, rate, requests, headers, expect, timeout = 30, sequence = 1 }) {
  const url = new URL(base);
  const latencies = [];
  const statuses = {};
  const opts = {
    url: url.origin,
    connections,
    pipelining: 1,
    timeout,
    headers,
    requests,
    ...(amount ? { amount } : { duration }),
    ...(rate ? { overallRate: rate } : {}),
  };
  const started = performance.now();
  // bench/package.json's, installed by `npm run bench`.
  const instance = require("autocannon")(opts);
  const errorMessages = {};
  instance.on("reqError", (error) => {
    const key = error?.code ?? error?.message ?? String(error);
    errorMessages[key] = (errorMessages[key] ?? 0) + 1;
  });
  const steps = new Map();
  let responses = 0;
  instance.on("response", (client, statusCode, _bytes, responseTime) => {
    responses += 1;
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    const step = steps.get(client) ?? { n: 0, ms: 0 };
    step.n += 1;
    step.ms += responseTime;
    if (step.n === sequence) {
      latencies.push(step.ms);
      steps.delete(client);
    } else {
      steps.set(client, step);
    }
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  const unexpected = Object.entries(statuses)
    .filter(([code]) => !expect.includes(Number(code)))
    .reduce((n, [, count]) => n + count, 0);
  return {
    requests: responses,
    seconds,
    rps: responses / seconds,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    mean: latencies.reduce((s, v) => s + v, 0) / (latencies.length || 1),
    statuses,
    unexpected,
    errors: result.errors,
    timeouts: result.timeouts,
    errorMessages,
  };
}
