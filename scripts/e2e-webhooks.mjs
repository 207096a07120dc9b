// `npm run test:e2e:webhooks`: publishNewEvent through `wrangler dev` with
// its local Queue and a real HTTP receiver.
//  1. A throw-away local D1 state and admin account; `wrangler dev` on a free
//     port with WEBHOOK_ALLOW_LOOPBACK=true and retries from 2 s (as
//     .dev.vars.example sets them for local development).
//  2. A Node HTTP server on a free loopback port records what it receives.
//  3. Register it, create an event, update it: both deliveries must arrive
//     within 10 s of their change, verify with the `standardwebhooks` package
//     and carry the event as GET returns it after that change.
//  4. Everything started here is stopped, whatever happens.
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { log } from "../tools/lib/cli.mjs";
import { prepareLocalState, throwawaySecrets } from "../tools/lib/local-state.mjs";
import { freePort } from "../tools/lib/ports.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";

const DEADLINE_MS = 10_000;

const received = [];
const receiverPort = await freePort();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    received.push({ headers: req.headers, body });
    res.writeHead(202).end();
  });
});
await new Promise((resolve) => receiver.listen(receiverPort, "127.0.0.1", resolve));

const state = prepareLocalState();
const server = await startWranglerDev({
  persistTo: state.persistTo,
  logLevel: "warn",
  vars: { ...throwawaySecrets(), WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_RETRY_BASE_SECONDS: "2" },
});

async function call(method, path, json) {
  const res = await fetch(`${server.origin}/v1.1${path}`, {
    method,
    headers: { Authorization: state.authorization, ...(json ? { "Content-Type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** Waits (at most 10 s) for delivery number `n` and returns it, verified. */
async function delivery(n, verifier, what) {
  const started = Date.now();
  while (received.length < n) {
    if (Date.now() - started > DEADLINE_MS) throw new Error(`${what}: no delivery within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { headers, body } = received[n - 1];
  const payload = verifier.verify(body, headers); // throws on a bad signature
  log(`${what}: delivered in ${Date.now() - started} ms, webhook-id ${headers["webhook-id"]}, signature verified`);
  return payload;
}

let failed = false;
try {
  const hook = await call("POST", "/webhooks", { url: `http://127.0.0.1:${receiverPort}/museum`, description: "e2e receiver" });
  expect(hook.status === 201, `POST /webhooks answered ${hook.status}: ${hook.text}`);
  const verifier = new Webhook(hook.body.secret);

  const dates = [`${new Date().getUTCFullYear() + 1}-03-14`];
  const created = await call("POST", "/special-events", { name: "Webhook e2e", location: "Hall", eventDescription: "Check.", dates, price: 12.5 });
  expect(created.status === 201, `POST /special-events answered ${created.status}: ${created.text}`);
  const first = await delivery(1, verifier, "create");
  expect(JSON.stringify(first) === JSON.stringify(created.body), "the create delivery is not the created event");

  const updated = await call("PATCH", `/special-events/${created.body.eventId}`, { price: 15 });
  expect(updated.status === 200, `PATCH answered ${updated.status}: ${updated.text}`);
  const second = await delivery(2, verifier, "update");
  const got = await call("GET", `/special-events/${created.body.eventId}`);
  expect(JSON.stringify(second) === got.text, "the update delivery is not the event as GET returns it");
  expect(received[0].headers["webhook-id"] !== received[1].headers["webhook-id"], "two changes, one webhook-id");

  const deliveries = await call("GET", `/webhooks/${hook.body.webhookId}/deliveries`);
  expect(deliveries.body.length === 2, `expected 2 deliveries listed, got ${deliveries.text}`);
  log("PASS: both deliveries arrived within 10 s and verified with standardwebhooks");
} catch (error) {
  failed = true;
  console.error(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop();
  receiver.close();
  state.cleanup();
}
process.exit(failed ? 1 : 0);
