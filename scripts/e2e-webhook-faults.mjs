#!/usr/bin/env node
// `npm run test:e2e:webhook-faults`: webhook subscribers that fail while the
// API is busy, through plain `wrangler dev` and its local Queue
// (docs/webhooks.md, "What a failing subscriber costs"). Loopback only: the
// hosts that do not resolve are never reached.
//  1. A throw-away local D1 with an admin and a kiosk (sales) account; plain
//     `wrangler dev`, its settings from wrangler.toml and .dev.vars (loopback
//     subscribers allowed, retries after about 2, 6, 18... s).
//  2. Subscriptions to hosts that do not resolve (`<uuid>.invalid`), to a
//     loopback port nobody listens on (refused), to a loopback server that
//     accepts and never answers (hanging), and one healthy loopback receiver.
//  3. For LOAD_SECONDS kiosks buy tickets without pause while an admin
//     creates events and updates each; then, within DRAIN_SECONDS, the healthy
//     receiver has every change and every failing delivery has been attempted.
//  4. Checks: every purchase and event write answered by the API itself (JSON
//     or problem+json with its X-Request-Id, never wrangler's text/plain 503);
//     the healthy receiver got each change once, signed, each answered write's
//     event among them, each event now as its last delivery says; each failing
//     subscription has one delivery row per change, `retrying` (or `failed`
//     after the last attempt) with no response status; no message given up to
//     the dead-letter queue; no "internal error" in wrangler's output but
//     workerd's report of a DNS lookup that failed for one of the hosts that
//     do not resolve, at most one per attempt.
// wrangler dev 4.86's proxy answers a request whose pooled connection to the
// Worker was lost with that same 503 ("Your worker restarted mid-request"),
// and leaves a GET waiting for a restart that never comes, while the Worker
// runs on (workers-sdk#14641; the restart it names is checked for in its
// output). Such a loss is counted, at most MAX_PROXY_LOSSES of them: a
// purchase is sent again with its Idempotency-Key and a GET again, and the
// changes are counted from the deliveries, not from the answers.
// Everything started here is stopped, whatever happens.
import { randomUUID } from "node:crypto";
import { createServer, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { stripVTControlCharacters } from "node:util";
import { Webhook } from "standardwebhooks";
import { exitOnHelp, log, logProgress } from "../tools/lib/cli.mjs";
import { addDays, museumToday, weekday } from "../tools/lib/dates.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { freePort } from "../tools/lib/ports.mjs";
import { startWebhookReceiver } from "../tools/lib/webhook-receiver.mjs";

exitOnHelp(`usage: npm run test:e2e:webhook-faults
Webhook subscribers that do not resolve, refuse or never answer, while kiosks buy
tickets and an admin writes events, through plain wrangler dev (a throw-away
local state, loopback only): every request answered by the API, nothing lost.`);

const SUBSCRIBERS_PER_FAULT = 2;
const KIOSKS = 3;
const LOAD_SECONDS = 25;
const DRAIN_SECONDS = 45;
/** Requests lost between wrangler dev's proxy and the Worker that the check puts up with (see above). */
const MAX_PROXY_LOSSES = 2;
/** wrangler dev 4.86's answer when its proxy lost the connection to the Worker, or the Worker restarted. */
const PROXY_LOST = "Your worker restarted mid-request";
/** wrangler.toml's WEBHOOK_MAX_ATTEMPTS: a delivery with this many attempts is `failed`. */
const MAX_ATTEMPTS = 8;

function expect(condition, message) {
  if (!condition) throw new Error(message);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One request on a connection of its own: a kept-alive connection that
 * wrangler dev closes as the next request starts on it fails in the client,
 * which says nothing about the API.
 */
function send(origin, authorization, method, path, body, { timeoutMs = 60_000, headers = {} } = {}) {
  const data = body === undefined ? undefined : JSON.stringify(body);
  const url = new URL(path, origin);
  return new Promise((resolve) => {
    const req = httpRequest(
      url,
      {
        method,
        agent: false,
        timeout: timeoutMs,
        headers: {
          authorization,
          ...headers,
          ...(data ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          resolve({
            what: `${method} ${path}`,
            status: res.statusCode,
            contentType: res.headers["content-type"] ?? "",
            requestId: res.headers["x-request-id"],
            text,
          }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on("error", (error) => resolve({ what: `${method} ${path}`, status: 0, contentType: "", text: String(error) }));
    req.end(data);
  });
}

/** Whether the Worker itself answered: JSON or a problem, with the request id every answer of the API carries. */
function answeredByApi(answer) {
  return /^application\/(problem\+)?json\b/.test(answer.contentType) && typeof answer.requestId === "string";
}

function describe(answer) {
  return `${answer.what}: ${answer.status} ${answer.contentType || "(no content type)"} ${answer.text.slice(0, 160)}`;
}

/** A loopback server that accepts every connection and never answers. */
async function hangingServer() {
  const sockets = new Set();
  const port = await freePort();
  const server = createServer(() => {});
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** The first day after today that the weekly schedule opens (Monday–Thursday). */
async function nextOpenDay() {
  let day = addDays(await museumToday(), 1);
  while (![1, 2, 3, 4].includes(weekday(day))) day = addDays(day, 1);
  return day;
}

/**
 * What of wrangler's output says something went wrong: "internal error"
 * lines (each a reference to workerd's own log of the exception, which names
 * a failed DNS lookup's host), other uncaught errors and error lines, and
 * the local Queue giving messages up.
 */
function readWranglerOutput(text) {
  const hostOfReference = new Map();
  const internalErrors = [];
  const otherErrors = [];
  const givenUp = [];
  let lookupHost = null;
  for (const line of stripVTControlCharacters(text).split("\n")) {
    const lookup = /DNS lookup failed\.; params\.host = ([^;\s]+)/.exec(line);
    const errorId = /wdErrId = (\w+)/.exec(line);
    const reference = /internal error; reference = (\w+)/.exec(line);
    if (lookup) lookupHost = lookup[1];
    else if (errorId) {
      hostOfReference.set(errorId[1], lookupHost);
      lookupHost = null;
    } else if (reference) internalErrors.push({ line, reference: reference[1] });
    else if (/restarted mid-request|Uncaught|\[ERROR\]/.test(line)) otherErrors.push(line.trim());
    if (/dead letter queue|Dropped message/.test(line)) givenUp.push(line.trim());
  }
  return { hostOfReference, internalErrors, otherErrors, givenUp, restarted: /Reloading local server/.test(text) };
}

/**
 * A loopback port that refuses connections for the whole check: a privileged
 * one, which nothing started here (wrangler dev, workerd, the receivers) can
 * take, as it could a free port of the ephemeral range picked beforehand.
 */
async function refusingPort(port = 1) {
  const refused = await new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      done(false);
    });
    socket.once("error", (error) => done(error.code === "ECONNREFUSED"));
  });
  expect(refused, `127.0.0.1:${port} must refuse connections (something listens on it)`);
  return port;
}

const devVars = ensureDevVars();
expect(devVars.WEBHOOK_ALLOW_LOOPBACK === "true", ".dev.vars must set WEBHOOK_ALLOW_LOOPBACK=true (as .dev.vars.example does)");
const ADMIN = "e2e-admin";
const KIOSK = "e2e-faults-kiosk";
const healthy = await startWebhookReceiver();
const hanging = await hangingServer();
const refusedPort = await refusingPort();
let wranglerOutput = "";

/** The calls of the check, as the admin and as a kiosk, and the requests wrangler dev's proxy lost. */
function apiCalls(origin, { [ADMIN]: admin, [KIOSK]: kiosk }) {
  /** Requests that wrangler dev's proxy lost on the way to the Worker. */
  const proxyLosses = [];
  function lostByProxy(answer) {
    const lost = answer.status === 503 && answer.contentType.startsWith("text/plain") && answer.text.startsWith(PROXY_LOST);
    if (lost) proxyLosses.push(answer.what);
    return lost;
  }
  /** A read: sent again when the proxy lost it (a lost GET is never answered, so it has a deadline). */
  async function read(path) {
    for (let tries = 1; ; tries++) {
      const answer = await send(origin, admin.authorization, "GET", path, undefined, { timeoutMs: 15_000 });
      const lost = answer.status === 0 && answer.text.includes("no answer within");
      if (lost) proxyLosses.push(answer.what);
      if (!lost || tries === 3) return answer;
    }
  }
  /** A purchase; sent again with its Idempotency-Key when the proxy lost it. */
  async function buy(purchase) {
    const headers = { "idempotency-key": randomUUID() };
    const answer = await send(origin, kiosk.authorization, "POST", "/v1.1/tickets", purchase, { headers });
    return lostByProxy(answer) ? send(origin, kiosk.authorization, "POST", "/v1.1/tickets", purchase, { headers }) : answer;
  }
  const write = (method, path, body) => send(origin, admin.authorization, method, path, body);
  return { proxyLosses, lostByProxy, read, buy, write };
}

/** Subscribes the faulty and healthy receivers, puts the API under load and checks it all; throws at the first unmet expectation. */
async function run({ proxyLosses, lostByProxy, read, buy, write }) {
  const faults = {
    "does not resolve": Array.from({ length: SUBSCRIBERS_PER_FAULT }, () => `https://${randomUUID()}.invalid/hook`),
    refuses: Array.from({ length: SUBSCRIBERS_PER_FAULT }, (_, i) => `http://127.0.0.1:${refusedPort}/hook-${i}`),
    "never answers": Array.from({ length: SUBSCRIBERS_PER_FAULT }, (_, i) => `http://127.0.0.1:${hanging.port}/hook-${i}`),
  };
  const subscriptions = [];
  for (const [fault, urls] of [...Object.entries(faults), ["healthy", [`http://127.0.0.1:${healthy.port}/hook`]]]) {
    for (const url of urls) {
      const answer = await write("POST", "/v1.1/webhooks", { url, description: `faults: ${fault}` });
      expect(answer.status === 201, describe(answer));
      subscriptions.push({ fault, ...JSON.parse(answer.text) });
    }
  }
  const healthyHook = subscriptions.find((s) => s.fault === "healthy");
  logProgress(`${subscriptions.length} subscriptions; ${KIOSKS} kiosks buy and an admin writes events for ${LOAD_SECONDS} s`);

  const day = await nextOpenDay();
  const purchase = { ticketType: "general", ticketDate: day, email: "visitor@example.com" };
  const purchases = [];
  const writes = [];
  const loadEnds = Date.now() + LOAD_SECONDS * 1000;
  const buyer = async () => {
    while (Date.now() < loadEnds) purchases.push(await buy(purchase));
  };
  const editor = async () => {
    for (let n = 1; Date.now() < loadEnds; n++) {
      const body = { name: `Faults ${n} ${randomUUID().slice(0, 8)}`, location: "Hall", eventDescription: "Busy.", dates: [day], price: n };
      const created = await write("POST", "/v1.1/special-events", body);
      writes.push(created);
      if (created.status === 201) writes.push(await write("PATCH", `/v1.1/special-events/${JSON.parse(created.text).eventId}`, { price: n + 0.5 }));
      // Irregular pauses: a steady 5 s cadence meets wrangler dev's 5 s
      // keep-alive timeouts (workers-sdk#14641).
      await sleep(2_000 + Math.random() * 1_500);
    }
  };
  const started = Date.now();
  await Promise.all([...Array.from({ length: KIOSKS }, buyer), editor()]);
  const seconds = (Date.now() - started) / 1000;
  const sold = purchases.filter((p) => p.status === 201).length;
  logProgress(`${purchases.length} purchases (${sold} sold, ${(purchases.length / seconds).toFixed(1)}/s), ${writes.length} event writes`);

  const answered = writes.filter((answer) => !lostByProxy(answer));
  for (const answer of [...purchases, ...answered]) expect(answeredByApi(answer), `not answered by the API: ${describe(answer)}`);
  for (const answer of purchases) expect(answer.status === 201 || answer.status === 409, `a purchase: ${describe(answer)}`);
  for (const answer of answered) expect(answer.status === 201 || answer.status === 200, `an event write: ${describe(answer)}`);
  expect(sold > 0, "no purchase sold a ticket");

  // The changes the Worker made: one delivery each to the healthy subscription.
  const deliveriesOf = async (hook) => {
    const answer = await read(`/v1.1/webhooks/${hook.webhookId}/deliveries`);
    expect(answer.status === 200, describe(answer));
    return JSON.parse(answer.text);
  };
  const drainEnds = Date.now() + DRAIN_SECONDS * 1000;
  let changes;
  for (;;) {
    const listings = await Promise.all(subscriptions.map(deliveriesOf));
    changes = listings[subscriptions.indexOf(healthyHook)].length;
    const attempted = listings.every((rows) => rows.length === changes && rows.every((row) => row.attempts >= 1));
    if (attempted && new Set(healthy.received.map((r) => r.headers["webhook-id"])).size === changes) break;
    if (Date.now() > drainEnds) {
      throw new Error(
        `within ${DRAIN_SECONDS} s of the load: the healthy receiver has ${healthy.received.length} of ${changes} changes; ` +
          `deliveries not yet attempted: ${listings.flat().filter((row) => row.attempts === 0).length}`,
      );
    }
    await sleep(1_000);
  }
  logProgress("the healthy receiver has every change; every failing delivery has been attempted");

  const verifier = new Webhook(healthyHook.secret);
  const healthyRows = await deliveriesOf(healthyHook); // newest first
  const delivered = new Map(); // deliveryId → the event it carries, as JSON text
  for (const row of healthyRows) {
    expect(row.status === "delivered" && row.responseStatus === 202, `the healthy delivery ${JSON.stringify(row)}`);
    const copies = healthy.received.filter((r) => r.headers["webhook-id"] === row.deliveryId);
    expect(copies.length === 1, `the healthy receiver got delivery ${row.deliveryId} ${copies.length} times`);
    const payload = verifier.verify(copies[0].body, copies[0].headers); // throws on a bad signature
    expect(payload.eventId === row.eventId, `delivery ${row.deliveryId} of event ${row.eventId} carries event ${payload.eventId}`);
    delivered.set(row.deliveryId, JSON.stringify(payload));
  }
  expect(healthy.received.length === changes, `the healthy receiver got ${healthy.received.length} requests for ${changes} changes`);
  expect(changes >= answered.length, `${changes} changes delivered for ${answered.length} event writes answered`);
  const bodies = new Set(delivered.values());
  for (const answer of answered) {
    expect(bodies.has(JSON.stringify(JSON.parse(answer.text))), `no delivery carries the event as ${answer.what} answered it`);
  }
  const eventIds = new Set(healthyRows.map((row) => row.eventId));
  for (const eventId of eventIds) {
    const got = await read(`/v1.1/special-events/${eventId}`);
    const last = delivered.get(healthyRows.find((row) => row.eventId === eventId).deliveryId);
    expect(got.status === 200 && JSON.stringify(JSON.parse(got.text)) === last, `the event as its last delivery: ${describe(got)}`);
  }

  let unresolvableAttempts = 0;
  for (const hook of subscriptions.filter((s) => s.fault !== "healthy")) {
    const rows = await deliveriesOf(hook);
    const events = rows.map((row) => row.eventId).sort();
    expect(
      JSON.stringify(events) === JSON.stringify(healthyRows.map((row) => row.eventId).sort()),
      `${hook.fault} ${hook.url}: ${rows.length} delivery rows for ${changes} changes`,
    );
    for (const row of rows) {
      const expected = row.attempts >= MAX_ATTEMPTS ? "failed" : "retrying";
      expect(
        row.status === expected && row.responseStatus === undefined,
        `${hook.fault} ${hook.url}: ${JSON.stringify(row)} (expected ${expected}, no response status)`,
      );
      if (hook.fault === "does not resolve") unresolvableAttempts += row.attempts;
    }
  }

  const output = readWranglerOutput(wranglerOutput);
  expect(output.givenUp.length === 0, `the local Queue gave messages up:\n${output.givenUp.slice(0, 5).join("\n")}`);
  expect(output.otherErrors.length === 0, `wrangler's output has errors:\n${output.otherErrors.slice(0, 5).join("\n")}`);
  expect(!output.restarted, "wrangler dev restarted the Worker");
  expect(proxyLosses.length <= MAX_PROXY_LOSSES, `wrangler dev's proxy lost ${proxyLosses.length} requests: ${proxyLosses.join(", ")}`);
  const unresolvable = new Set(faults["does not resolve"].map((url) => new URL(url).hostname));
  for (const { line, reference } of output.internalErrors) {
    expect(unresolvable.has(output.hostOfReference.get(reference)), `an internal error that is no failed DNS lookup of a subscriber's host: ${line}`);
  }
  // An attempt may have failed its lookup and not yet been recorded: one each at most.
  const inFlight = SUBSCRIBERS_PER_FAULT * changes;
  expect(
    output.internalErrors.length <= unresolvableAttempts + inFlight,
    `${output.internalErrors.length} internal errors for ${unresolvableAttempts} attempts to hosts that do not resolve`,
  );
  log(
    `PASS: ${purchases.length} purchases and ${answered.length} event writes answered by the API; the healthy receiver got ` +
      `all ${changes} changes once; ${subscriptions.length - 1} failing subscriptions have every delivery recorded ` +
      `(${unresolvableAttempts} attempts to hosts that do not resolve, ${output.internalErrors.length} "internal error" lines, each a failed DNS lookup)` +
      (proxyLosses.length > 0 ? `; wrangler dev's proxy lost ${proxyLosses.join(", ")} (sent again where safe)` : ""),
  );
}

let failed = false;
const options = {
  // Plain wrangler dev, its settings from .dev.vars (see the header).
  throwawaySecrets: false,
  accounts: { [ADMIN]: "admin", [KIOSK]: "sales" },
  onOutput: (chunk) => (wranglerOutput += chunk),
  onStopFailure: (error) => console.error(`stopping wrangler dev: ${error.message}`),
};
try {
  await withLocalServer(options, async (server, { accounts }) => {
    try {
      await run(apiCalls(server.origin, accounts));
    } catch (error) {
      failed = true;
      console.error(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
} finally {
  healthy.close();
  hanging.close();
}
process.exit(failed ? 1 : 0);
