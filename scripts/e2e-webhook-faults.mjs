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
//     or problem+json with its X-Request-Id, never wrangler's text/plain 503),
//     every event there as last written; the healthy receiver got each change
//     once, signed; each failing subscription has one delivery row per change,
//     `retrying` (or `failed` after the last attempt) with no response status;
//     no message given up to the dead-letter queue; and no "internal error" in
//     wrangler's output but workerd's report of a DNS lookup that failed for
//     one of the hosts that do not resolve, at most one per attempt.
// Everything started here is stopped, whatever happens.
import { randomUUID } from "node:crypto";
import { createServer, request as httpRequest } from "node:http";
import { stripVTControlCharacters } from "node:util";
import { Webhook } from "standardwebhooks";
import { exitOnHelp, log, logProgress } from "../tools/lib/cli.mjs";
import { insertAccountSql, basicAuthorization, newSecret } from "../tools/lib/accounts.mjs";
import { addDays, museumToday, weekday } from "../tools/lib/dates.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { prepareLocalState } from "../tools/lib/local-state.mjs";
import { freePort } from "../tools/lib/ports.mjs";
import { d1Execute, d1Target } from "../tools/lib/wrangler.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";

exitOnHelp(`usage: npm run test:e2e:webhook-faults
Webhook subscribers that do not resolve, refuse or never answer, while kiosks buy
tickets and an admin writes events, through plain wrangler dev (a throw-away
local state, loopback only): every request answered by the API, nothing lost.`);

const SUBSCRIBERS_PER_FAULT = 2;
const KIOSKS = 3;
const LOAD_SECONDS = 25;
const DRAIN_SECONDS = 45;
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
function call(origin, authorization, method, path, body) {
  const data = body === undefined ? undefined : JSON.stringify(body);
  const url = new URL(path, origin);
  return new Promise((resolve) => {
    const req = httpRequest(
      url,
      {
        method,
        agent: false,
        timeout: 60_000,
        headers: { authorization, ...(data ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) } : {}) },
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
    req.on("timeout", () => req.destroy(new Error("no answer within 60 s")));
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

/** A loopback receiver that records each delivery and answers 202. */
async function healthyReceiver() {
  const received = [];
  const port = await freePort();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(202).end();
    });
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => server.close() };
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
  return { hostOfReference, internalErrors, otherErrors, givenUp };
}

const devVars = ensureDevVars();
expect(devVars.WEBHOOK_ALLOW_LOOPBACK === "true", ".dev.vars must set WEBHOOK_ALLOW_LOOPBACK=true (as .dev.vars.example does)");
const state = prepareLocalState();
const kiosk = { name: "e2e-faults-kiosk", secret: newSecret() };
d1Execute(d1Target({ persistTo: state.persistTo }), { command: insertAccountSql({ ...kiosk, role: "sales" }) });
const healthy = await healthyReceiver();
const hanging = await hangingServer();
const refusedPort = await freePort();
let wranglerOutput = "";
const server = await startWranglerDev({ persistTo: state.persistTo, logLevel: "warn", onOutput: (chunk) => (wranglerOutput += chunk) });
const admin = (method, path, body) => call(server.origin, state.authorization, method, path, body);
const kioskAuthorization = basicAuthorization(kiosk.name, kiosk.secret);

let failed = false;
try {
  const faults = {
    "does not resolve": Array.from({ length: SUBSCRIBERS_PER_FAULT }, () => `https://${randomUUID()}.invalid/hook`),
    refuses: Array.from({ length: SUBSCRIBERS_PER_FAULT }, (_, i) => `http://127.0.0.1:${refusedPort}/hook-${i}`),
    "never answers": Array.from({ length: SUBSCRIBERS_PER_FAULT }, (_, i) => `http://127.0.0.1:${hanging.port}/hook-${i}`),
  };
  const subscriptions = [];
  for (const [fault, urls] of [...Object.entries(faults), ["healthy", [healthy.url]]]) {
    for (const url of urls) {
      const answer = await admin("POST", "/v1.1/webhooks", { url, description: `faults: ${fault}` });
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
  const events = new Map(); // eventId → the event as last written
  const loadEnds = Date.now() + LOAD_SECONDS * 1000;
  const buyer = async () => {
    while (Date.now() < loadEnds) purchases.push(await call(server.origin, kioskAuthorization, "POST", "/v1.1/tickets", purchase));
  };
  const editor = async () => {
    for (let n = 1; Date.now() < loadEnds; n++) {
      const body = { name: `Faults ${n} ${randomUUID().slice(0, 8)}`, location: "Hall", eventDescription: "Busy.", dates: [day], price: n };
      const created = await admin("POST", "/v1.1/special-events", body);
      writes.push(created);
      if (created.status === 201) {
        const event = JSON.parse(created.text);
        events.set(event.eventId, event);
        const updated = await admin("PATCH", `/v1.1/special-events/${event.eventId}`, { price: n + 0.5 });
        writes.push(updated);
        if (updated.status === 200) events.set(event.eventId, JSON.parse(updated.text));
      }
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

  for (const answer of [...purchases, ...writes]) expect(answeredByApi(answer), `not answered by the API: ${describe(answer)}`);
  for (const answer of purchases) expect(answer.status === 201 || answer.status === 409, `a purchase: ${describe(answer)}`);
  for (const answer of writes) expect(answer.status === 201 || answer.status === 200, `an event write: ${describe(answer)}`);
  expect(sold > 0, "no purchase sold a ticket");

  const changes = writes.length;
  const deliveriesOf = async (hook) => {
    const answer = await admin("GET", `/v1.1/webhooks/${hook.webhookId}/deliveries`);
    expect(answer.status === 200, describe(answer));
    return JSON.parse(answer.text);
  };
  const drainEnds = Date.now() + DRAIN_SECONDS * 1000;
  for (;;) {
    const listings = await Promise.all(subscriptions.map(deliveriesOf));
    const attempted = listings.every((rows) => rows.length === changes && rows.every((row) => row.attempts >= 1));
    if (attempted && new Set(healthy.received.map((r) => r.headers["webhook-id"])).size >= changes) break;
    if (Date.now() > drainEnds) {
      throw new Error(
        `within ${DRAIN_SECONDS} s of the load: the healthy receiver has ${healthy.received.length} of ${changes} changes; ` +
          `deliveries not yet attempted: ${listings.flat().filter((row) => row.attempts === 0).length}`,
      );
    }
    await sleep(1_000);
  }
  logProgress("the healthy receiver has every change; every failing delivery has been attempted");

  for (const [eventId, written] of events) {
    const got = await admin("GET", `/v1.1/special-events/${eventId}`);
    expect(got.status === 200 && got.text === JSON.stringify(written), `the event as last written: ${describe(got)}`);
  }

  const verifier = new Webhook(healthyHook.secret);
  const healthyRows = await deliveriesOf(healthyHook);
  for (const row of healthyRows) {
    expect(row.status === "delivered" && row.responseStatus === 202, `the healthy delivery ${JSON.stringify(row)}`);
    const copies = healthy.received.filter((r) => r.headers["webhook-id"] === row.deliveryId);
    expect(copies.length === 1, `the healthy receiver got delivery ${row.deliveryId} ${copies.length} times`);
    const payload = verifier.verify(copies[0].body, copies[0].headers); // throws on a bad signature
    expect(payload.eventId === row.eventId && events.has(row.eventId), `delivery ${row.deliveryId} carries event ${payload.eventId}`);
  }
  expect(healthy.received.length === changes, `the healthy receiver got ${healthy.received.length} requests for ${changes} changes`);

  let unresolvableAttempts = 0;
  for (const hook of subscriptions.filter((s) => s.fault !== "healthy")) {
    const rows = await deliveriesOf(hook);
    expect(rows.length === changes, `${hook.fault} ${hook.url}: ${rows.length} delivery rows for ${changes} changes`);
    for (const row of rows) {
      const expected = row.attempts >= MAX_ATTEMPTS ? "failed" : "retrying";
      expect(
        row.status === expected && row.responseStatus === undefined && events.has(row.eventId),
        `${hook.fault} ${hook.url}: ${JSON.stringify(row)} (expected ${expected}, no response status)`,
      );
      if (hook.fault === "does not resolve") unresolvableAttempts += row.attempts;
    }
  }

  const output = readWranglerOutput(wranglerOutput);
  expect(output.givenUp.length === 0, `the local Queue gave messages up:\n${output.givenUp.slice(0, 5).join("\n")}`);
  expect(output.otherErrors.length === 0, `wrangler's output has errors:\n${output.otherErrors.slice(0, 5).join("\n")}`);
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
    `PASS: ${purchases.length} purchases and ${writes.length} event writes answered by the API; the healthy receiver got ` +
      `all ${changes} changes once; ${subscriptions.length - 1} failing subscriptions have every delivery recorded ` +
      `(${unresolvableAttempts} attempts to hosts that do not resolve, ${output.internalErrors.length} "internal error" lines, each a failed DNS lookup)`,
  );
} catch (error) {
  failed = true;
  console.error(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop().catch((error) => console.error(`stopping wrangler dev: ${error.message}`));
  healthy.close();
  hanging.close();
  state.cleanup();
}
process.exit(failed ? 1 : 0);
