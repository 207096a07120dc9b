// What the gate's and the webhook scenarios need before they run, made
// through the running server as a client would: tickets sold for today and
// the codes read from their images; a loopback webhook receiver, the
// subscriptions that point at it, and waiting until it has every delivery.
import { createServer } from "node:http";
import { readTicketCode } from "../tools/lib/ticket-qr.mjs";

const API = "/v1.1";

/** One API call as a client makes it (JSON body, Basic auth). */
export async function call(base, auth, method, path, json) {
  const res = await fetch(`${base}${API}${path}`, {
    method,
    headers: { Authorization: auth, ...(json === undefined ? {} : { "Content-Type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return res;
}

/** The response's JSON, or an error that says what answered what. */
export async function expectJson(res, status, what) {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what} answered ${res.status}, expected ${status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** Runs `task(i)` for i in [0, count) with at most `parallel` at a time; returns the results in order. */
export async function inParallel(count, parallel, task) {
  const out = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return out;
}

/**
 * `count` tickets sold for today, each the code a gate would scan: an event
 * dated today (so the museum's opening hours do not matter), its tickets
 * bought through POST /tickets, each one's image fetched and its QR code
 * read (fast-png + jsQR), never signed here.
 */
export async function ticketCodesForToday({ base, ctx, count }) {
  const event = await expectJson(
    await call(base, ctx.auth, "POST", "/special-events", {
      name: `Bench gate ${ctx.runId} ${Date.now()}`,
      location: "Great Hall",
      eventDescription: "Tickets the gate scenario admits.",
      dates: [ctx.today],
      price: 12,
    }),
    201,
    "creating today's event",
  );
  return inParallel(count, 4, async (n) => {
    const sold = await expectJson(
      await call(base, ctx.auth, "POST", "/tickets", {
        ticketType: "event",
        eventId: event.eventId,
        ticketDate: ctx.today,
        email: `gate-${ctx.runId}-${n}@example.com`,
      }),
      201,
      "selling a ticket for today",
    );
    const image = await call(base, ctx.auth, "GET", `/tickets/${sold.ticketId}/qr`);
    if (image.status !== 200) throw new Error(`its image answered ${image.status}`);
    return readTicketCode(new Uint8Array(await image.arrayBuffer()));
  });
}

/** A Node HTTP server on a free loopback port that answers every request 202 and counts them. */
export async function startWebhookReceiver() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      res.writeHead(202).end();
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/bench-hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Registers `count` subscriptions to `url`; returns their ids. */
export async function subscribe({ base, ctx, url, count }) {
  const ids = [];
  for (let i = 0; i < count; i += 1) {
    const hook = await expectJson(await call(base, ctx.auth, "POST", "/webhooks", { url, description: `bench ${i}` }), 201, "a subscription");
    ids.push(hook.webhookId);
  }
  return ids;
}

export async function unsubscribe({ base, ctx, ids }) {
  for (const id of ids) await expectJson(await call(base, ctx.auth, "DELETE", `/webhooks/${id}`), 204, "ending a subscription");
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the receiver has `expected` deliveries; returns false after `timeoutMs`. */
export async function waitForDeliveries(receiver, expected, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  while (receiver.received() < expected) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}
