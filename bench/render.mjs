// The render phases of `npm run bench` (docs/performance.md, "Ticket images"):
// the first render in a warm isolate, the first renders of fresh isolates, a
// sale with its pre-render, and a cancelled card against an event card. Each
// checkout (this one, and with --against a "before") is built by its own
// wrangler.toml, gets its own migrations and account, sells its tickets
// through its own API, and is served by Miniflare directly; the two sides
// alternate request by request or round by round, so the machine's changing
// load falls on both alike. Worker CPU: the workerd process, all threads
// (V8 compiles and tiers resvg's wasm up on background threads).
import { join } from "node:path";
import { basicAuthorization } from "../tools/lib/accounts.mjs";
import { addDays } from "../tools/lib/dates.mjs";
import { log } from "../tools/lib/cli.mjs";
import { throwawaySecrets } from "../tools/lib/local-state.mjs";
import { buildWorker } from "./build.mjs";
import { call, createEvent, expectJson, inParallel } from "./scenarios.mjs";
import { nextOpenDay, seedDatabase } from "./seed.mjs";
import { DirectMiniflare, cpuMsOf } from "./servers.mjs";

/** The card kinds, each a ticket sold through the API (a cancelled one by deleting its event). */
export const CARD_KINDS = ["general", "event", "cancelled"];

/** Fresh isolates whose first request was a sale: its pre-render ran after the response, then 1 s idle. */
export const WARMED_UP = "general, after a sale's pre-render";

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** One request's status, Worker CPU and latency. */
async function timed(server, request) {
  const cpuBefore = cpuMsOf(server.pids);
  const started = performance.now();
  const res = await request();
  await res.arrayBuffer();
  return { status: res.status, cpuMs: cpuMsOf(server.pids) - cpuBefore, latencyMs: performance.now() - started };
}

/** Builds, migrates and seeds each checkout, then sells `counts` tickets of each kind through its API. */
async function prepare(checkouts, work, today, counts) {
  for (const [n, checkout] of checkouts.entries()) {
    log(`==> render phases: building ${checkout.label}, selling its tickets through its API`);
    checkout.script = buildWorker(checkout.dir, join(work, `render-dist-${n}`)).script;
    checkout.persistTo = join(work, `render-d1-${n}`);
    const { account } = seedDatabase({ checkout: checkout.dir, persistTo: checkout.persistTo, today, events: 0, tickets: 0, withGate: false });
    checkout.auth = basicAuthorization(account.name, account.secret);
    checkout.secrets = throwawaySecrets();
    const server = await serve(checkout, false);
    try {
      const { base } = server;
      const sell = (count, body) =>
        inParallel(count, 4, async (i) => (await expectJson(await call(base, checkout.auth, "POST", "/tickets", { ...body, email: `render-${i}@example.com` }), 201, "selling a ticket")).ticketId);
      const kept = await createEvent(base, checkout.auth, today, "Render: event card");
      const deleted = await createEvent(base, checkout.auth, today, "Render: cancelled card");
      checkout.ids = {
        general: await sell(counts.general, { ticketType: "general", ticketDate: nextOpenDay(addDays(today, 1)) }),
        event: await sell(counts.event, { ticketType: "event", eventId: kept.eventId, ticketDate: today }),
        cancelled: await sell(counts.cancelled, { ticketType: "event", eventId: deleted.eventId, ticketDate: today }),
      };
      await expectJson(await call(base, checkout.auth, "DELETE", `/special-events/${deleted.eventId}`), 204, "deleting the event");
    } finally {
      await server.stop();
    }
  }
}

/** A fresh server of a checkout, its sale's pre-render on or off. */
function serve(checkout, prerender) {
  const vars = { PRERENDER_TICKET_IMAGES: String(prerender) };
  return new DirectMiniflare({ script: checkout.script, persistTo: checkout.persistTo, secrets: checkout.secrets, vars, config: join(checkout.dir, "wrangler.toml") }).start();
}

async function image(checkout, server, kind, id = checkout.ids[kind].shift()) {
  const r = await timed(server, () => fetch(`${server.base}/v1.1/tickets/${id}/qr`, { headers: { Authorization: checkout.auth } }));
  if (r.status !== 200) throw new Error(`${checkout.label}: GET /qr of a ${kind} ticket answered ${r.status}`);
  return r;
}

/**
 * Measures the render phases into `results.renderCost` and then
 * `results.freshIsolates` (each written as soon as it is measured).
 * `checkouts`: [{ label, dir }], this one first.
 */
export async function measureRenders({ checkouts, work, today, renders, warmups, rounds, freshRenders, sales, pairs }, results) {
  const counts = {
    general: 1 + warmups + renders + 2 * rounds * freshRenders,
    event: rounds * freshRenders + pairs,
    cancelled: rounds * freshRenders + pairs,
  };
  await prepare(checkouts, work, today, counts);
  const running = new Set();
  const start = async (checkout, prerender) => {
    const server = await serve(checkout, prerender);
    running.add(server);
    return server;
  };
  const stop = async (server) => {
    running.delete(server);
    await server.stop();
  };
  try {
    log(`==> render cost: a fresh isolate's first render, ${warmups} of tier-up, ${renders} measured, ${renders} cached`);
    const servers = [];
    for (const checkout of checkouts) servers.push(await start(checkout, false));
    const each = async (count, fetchOne) => {
      const out = checkouts.map(() => []);
      for (let i = 0; i < count; i += 1) for (const [n, checkout] of checkouts.entries()) out[n].push((await fetchOne(checkout, servers[n])).cpuMs);
      return out;
    };
    // The fresh isolate's first image is the cached one afterwards.
    const cachedIds = checkouts.map((c) => c.ids.general[0]);
    const fresh = await each(1, (c, s) => image(c, s, "general"));
    const warmup = await each(warmups, (c, s) => image(c, s, "general"));
    const first = await each(renders, (c, s) => image(c, s, "general"));
    const cached = await each(renders, (c, s) => image(c, s, "general", cachedIds[checkouts.indexOf(c)]));
    for (const server of servers) await stop(server);
    results.renderCost = {
      renders,
      warmups,
      subjects: checkouts.map((c, n) => ({ label: c.label, freshMs: fresh[n][0], warmupMs: warmup[n], firstMs: first[n], cachedMs: cached[n] })),
    };

    for (const checkout of checkouts) checkout.fresh = Object.fromEntries([...CARD_KINDS, WARMED_UP].map((kind) => [kind, []]));
    for (let round = 0; round < rounds; round += 1) {
      const order = [...CARD_KINDS, WARMED_UP].flatMap((kind) => checkouts.map((checkout) => ({ kind, checkout })));
      for (const { kind, checkout } of round % 2 === 0 ? order : order.reverse()) {
        log(`==> fresh isolates, round ${round + 1} of ${rounds}: ${checkout.label}, ${kind} cards, ${freshRenders} first renders`);
        const warmedUp = kind === WARMED_UP;
        const server = await start(checkout, warmedUp);
        if (warmedUp) {
          const body = { ticketType: "general", ticketDate: nextOpenDay(addDays(today, 1)), email: "warm-up@example.com" };
          await expectJson(await call(server.base, checkout.auth, "POST", "/tickets", body), 201, "the warm-up sale");
          await sleep(1000);
        }
        const series = [];
        for (let i = 0; i < freshRenders; i += 1) series.push(await image(checkout, server, warmedUp ? "general" : kind));
        checkout.fresh[kind].push(series);
        await stop(server);
      }
    }

    log(`==> a sale with its pre-render, warm isolates, ${sales} sales; then ${pairs} cancelled and event cards in turn`);
    const subjects = [];
    for (const checkout of checkouts) subjects.push({ checkout, server: await start(checkout, true), sales: [], pairs: [] });
    const saleDate = nextOpenDay(addDays(today, 1));
    // The pre-render runs after the response (waitUntil): the CPU is read once it is done.
    const sell = async ({ checkout, server }, n) => {
      const body = { ticketType: "general", ticketDate: saleDate, email: `sale-${n}@example.com` };
      const sale = await timed(server, () => call(server.base, checkout.auth, "POST", "/tickets", body));
      if (sale.status !== 201) throw new Error(`${checkout.label}: POST /tickets answered ${sale.status}`);
      const before = cpuMsOf(server.pids) - sale.cpuMs;
      await sleep(250);
      return { ...sale, cpuMs: cpuMsOf(server.pids) - before };
    };
    for (let n = 0; n < sales; n += 1) for (const subject of subjects) await sell(subject, n);
    for (let n = 0; n < sales; n += 1) for (const subject of n % 2 === 0 ? subjects : [...subjects].reverse()) subject.sales.push(await sell(subject, sales + n));
    for (let n = 0; n < pairs; n += 1) {
      for (const subject of subjects) {
        const cpu = {};
        for (const kind of n % 2 === 0 ? ["event", "cancelled"] : ["cancelled", "event"]) cpu[kind] = (await image(subject.checkout, subject.server, kind)).cpuMs;
        subject.pairs.push(cpu);
      }
    }
    results.freshIsolates = {
      rounds,
      renders: freshRenders,
      subjects: subjects.map(({ checkout, sales: sold, pairs: paired }) => ({ label: checkout.label, fresh: checkout.fresh, sales: sold, pairs: paired })),
    };
  } finally {
    for (const server of running) await server.stop();
  }
}
