#!/usr/bin/env node
// `npm run test:e2e:webhooks`: publishNewEvent through `wrangler dev` with
// its local Queue and a real HTTP receiver.
//  1. A throw-away local D1 state and admin account; plain `wrangler dev` on a
//     free port, with no --var: its settings are wrangler.toml's and
//     .dev.vars's (created from .dev.vars.example when missing, as `npm run
//     dev` does), so the loopback receiver below is accepted only if wrangler
//     gives the Worker .dev.vars's WEBHOOK_ALLOW_LOOPBACK=true.
//  2. A Node HTTP server on a free loopback port records what it receives.
//  3. Register it, create an event, update it: both deliveries must arrive
//     within 10 s of their change, verify with the `standardwebhooks` package
//     and carry the event as GET returns it after that change.
//  4. Everything started here is stopped, whatever happens.
// The admin calls go through the project's own typed client (museum-api-client).
import { createMuseumClient } from "museum-api-client";
import { Webhook } from "standardwebhooks";
import { exitOnHelp, fetchWithin, log } from "../tools/lib/cli.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { startWebhookReceiver } from "../tools/lib/webhook-receiver.mjs";

exitOnHelp(`usage: npm run test:e2e:webhooks
publishNewEvent deliveries through wrangler dev's local Queue to a loopback receiver.`);

const DEADLINE_MS = 10_000;
const ADMIN = "e2e-admin";

const receiver = await startWebhookReceiver();
const { received } = receiver;

const devVars = ensureDevVars();
if (devVars.WEBHOOK_ALLOW_LOOPBACK !== "true") throw new Error(".dev.vars must set WEBHOOK_ALLOW_LOOPBACK=true (as .dev.vars.example does)");
function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** The body of a call's expected answer; anything else fails with the status and problem. */
function answer({ data, error, response }, status, what) {
  expect(response.status === status, `${what} answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
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

/** Registers the receiver, creates and updates an event; throws at the first unmet expectation. */
async function run(client) {
  const hook = answer(
    await client.POST("/webhooks", { body: { url: `http://127.0.0.1:${receiver.port}/museum`, description: "e2e receiver" } }),
    201,
    "POST /webhooks",
  );
  const verifier = new Webhook(hook.secret);

  const dates = [`${new Date().getUTCFullYear() + 1}-03-14`];
  const created = answer(
    await client.POST("/special-events", { body: { name: "Webhook e2e", location: "Hall", eventDescription: "Check.", dates, price: 12.5 } }),
    201,
    "POST /special-events",
  );
  const first = await delivery(1, verifier, "create");
  expect(JSON.stringify(first) === JSON.stringify(created), "the create delivery is not the created event");

  const eventPath = { params: { path: { eventId: created.eventId } } };
  answer(await client.PATCH("/special-events/{eventId}", { ...eventPath, body: { price: 15 } }), 200, "PATCH /special-events/{eventId}");
  const second = await delivery(2, verifier, "update");
  const got = answer(await client.GET("/special-events/{eventId}", eventPath), 200, "GET /special-events/{eventId}");
  expect(JSON.stringify(second) === JSON.stringify(got), "the update delivery is not the event as GET returns it");
  expect(received[0].headers["webhook-id"] !== received[1].headers["webhook-id"], "two changes, one webhook-id");

  const deliveries = answer(
    await client.GET("/webhooks/{webhookId}/deliveries", { params: { path: { webhookId: hook.webhookId } } }),
    200,
    "GET /webhooks/{webhookId}/deliveries",
  );
  expect(deliveries.length === 2, `expected 2 deliveries listed, got ${JSON.stringify(deliveries)}`);
}

let failed = false;
try {
  // No throw-away secrets: plain wrangler dev, its settings from .dev.vars (see the header).
  await withLocalServer({ accounts: { [ADMIN]: "admin" }, throwawaySecrets: false }, async (server, { accounts }) => {
    const { name, secret } = accounts[ADMIN];
    try {
      await run(createMuseumClient({ baseUrl: server.origin, username: name, password: secret, fetch: fetchWithin(60_000) }));
      log("PASS: both deliveries arrived within 10 s and verified with standardwebhooks");
    } catch (error) {
      failed = true;
      console.error(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
} finally {
  receiver.close();
}
process.exit(failed ? 1 : 0);
