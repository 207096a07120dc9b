#!/usr/bin/env node
// End to end through `wrangler dev` (docs/admission.md): the ticket lifecycle
// and admission at the gate, as a box office, a gate and an administrator see
// them, against a fresh local D1 with every migration.
//
//   npm run test:e2e:admission
//
// buy → fetch the image → read its QR code (fast-png + jsQR) → admit → admit
// again (409 already-admitted); an event deleted → its ticket's image changes
// (new ETag) and its admission is refused (409 ticket-cancelled); an event
// losing a date with tickets (409 tickets-affected, then ?cancelTickets=true);
// a forged code (422 invalid-ticket-code); the gate's 403 elsewhere; an
// order of two at the box office, one ticket taken back (refund, new image,
// 409 ticket-cancelled at the gate), the other admitted, so the order has
// nothing left to cancel; an offline gate's sync (keys, rules, revocations)
// and its own verdicts (museum-api-client/gate); scans it made offline
// uploaded later (its clock an hour behind): one admitted, one a conflict
// (its ticket admitted online before), the same upload again answering the
// same, the day's conflicts; the day's attendance. Exits non-zero on the first unmet expectation. Every call
// goes through the project's typed client (museum-api-client).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { createMuseumClient, getTicketImage } from "museum-api-client";
import { checkTicketCode } from "museum-api-client/gate";
import { fetchWithin, log, runMain } from "../tools/lib/cli.mjs";
import { addDays, museumToday } from "../tools/lib/dates.mjs";
import { readTicketCode } from "../tools/lib/ticket-qr.mjs";

const USAGE = "usage: npm run test:e2e:admission";

/** The accounts of the local state: an admin, a sales and a gate account, by role. */
const ACCOUNTS = { "e2e-admin": "admin", "e2e-sales": "sales", "e2e-gate": "gate" };

/** A typed client per role. */
function clients(origin, accounts) {
  return Object.fromEntries(
    Object.values(accounts).map(({ name, role, secret }) => [role, createMuseumClient({ baseUrl: origin, username: name, password: secret, fetch: fetchWithin(60_000) })]),
  );
}

/** A call's answer as the checks read it: status, headers, and the data or the problem. */
function answer({ data, error, response }) {
  return { status: response.status, headers: response.headers, body: data ?? error };
}

/** The ticket image (`etag`: revalidate) as an answer whose body is the PNG. */
async function ticketImage(client, ticketId, etag) {
  const image = await getTicketImage(client, ticketId, { etag });
  const body = image.kind === "image" ? image.image : image.kind === "problem" ? image.problem : undefined;
  return { status: image.response.status, headers: image.response.headers, body };
}

function expectStatus(res, status, what) {
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body instanceof Uint8Array ? "<bytes>" : res.body)}`);
  log(`ok  ${what}: ${status}${res.body?.type ? ` ${res.body.type}` : ""}`);
  return res.body;
}

async function run({ admin, sales, gate }) {
  const today = await museumToday();
  const tomorrow = addDays(today, 1);
  const event = async (name, dates) =>
    answer(await admin.POST("/special-events", { body: { name, location: "Great Hall", eventDescription: "End-to-end check.", dates, price: 12 } }));
  const buy = async (eventId, ticketDate) =>
    answer(await sales.POST("/tickets", { body: { ticketType: "event", eventId, ticketDate, email: "e2e@example.com" } }));
  const admit = async (code, as = gate) => answer(await as.POST("/admissions", { body: { code } }));
  const ticketStatus = async (ticketId) => answer(await sales.GET("/tickets/{ticketId}", { params: { path: { ticketId } } }));
  const changeDates = async (eventId, dates, cancelTickets) =>
    answer(
      await admin.PATCH("/special-events/{eventId}", {
        params: { path: { eventId }, ...(cancelTickets ? { query: { cancelTickets: true } } : {}) },
        body: { dates },
      }),
    );

  // Buy → image → QR → admit → admit again.
  const { eventId } = expectStatus(await event("E2E admission", [today, tomorrow]), 201, "admin creates an event for today");
  const ticket = expectStatus(await buy(eventId, today), 201, "sales buys an event ticket for today");
  const image = await ticketImage(sales, ticket.ticketId);
  expectStatus(image, 200, "sales fetches the ticket image");
  const code = await readTicketCode(image.body);
  log(`    the QR code reads ${code}`);
  const admitted = expectStatus(await admit(code), 201, "the gate admits the scanned code");
  assert.equal(admitted.ticketId, ticket.ticketId);
  assert.equal(admitted.gate, "e2e-gate");
  const again = expectStatus(await admit(code), 409, "the same code again");
  assert.equal(again.type, "/problems/already-admitted");
  assert.equal(again.admittedAt, admitted.admittedAt);
  assert.equal(again.gate, "e2e-gate");
  assert.equal(expectStatus(await ticketStatus(ticket.ticketId), 200, "sales reads the status").status, "admitted");

  // A forged code and the gate's limits.
  const forged = `${code.slice(0, -1)}${code.endsWith("A") ? "B" : "A"}`;
  assert.equal(expectStatus(await admit(forged), 422, "a forged code").type, "/problems/invalid-ticket-code");
  expectStatus(answer(await gate.GET("/museum-hours")), 403, "the gate reads the hours");
  expectStatus(await admit(code, sales), 403, "sales admits");

  // Event deleted → the ticket is cancelled: new image ETag, admission refused.
  const { eventId: doomed } = expectStatus(await event("E2E cancelled", [today]), 201, "admin creates a second event");
  const cancelled = expectStatus(await buy(doomed, today), 201, "sales buys a ticket for it");
  const before = await ticketImage(sales, cancelled.ticketId);
  const etag = before.headers.get("ETag");
  const cancelledCode = await readTicketCode(before.body);
  expectStatus(answer(await admin.DELETE("/special-events/{eventId}", { params: { path: { eventId: doomed } } })), 204, "admin deletes the event");
  const after = await ticketImage(sales, cancelled.ticketId, etag);
  expectStatus(after, 200, "the image, revalidated with the old ETag");
  assert.notEqual(after.headers.get("ETag"), etag, "a cancelled ticket's image has a new ETag");
  assert.equal(expectStatus(await admit(cancelledCode), 409, "the cancelled ticket at the gate").type, "/problems/ticket-cancelled");

  // An event losing a date with a valid ticket: refused, then cancelled with the change.
  const { eventId: moved } = expectStatus(await event("E2E moved", [today, tomorrow]), 201, "admin creates a third event");
  const stranded = expectStatus(await buy(moved, tomorrow), 201, "sales buys a ticket for tomorrow");
  const refused = expectStatus(await changeDates(moved, [today]), 409, "admin drops tomorrow from the event");
  assert.equal(refused.type, "/problems/tickets-affected");
  assert.deepEqual([refused.affectedTickets, refused.dates], [1, [tomorrow]]);
  expectStatus(await changeDates(moved, [today], true), 200, "the same change with ?cancelTickets=true");
  assert.equal(expectStatus(await ticketStatus(stranded.ticketId), 200, "its ticket").status, "cancelled");

  // The box office takes one ticket of an order back: refunded, its image marked, refused at the gate.
  const { eventId: family } = expectStatus(await event("E2E box office", [today]), 201, "admin creates a fourth event");
  const line = { ticketType: "event", eventId: family, ticketDate: today };
  const order = expectStatus(
    answer(await sales.POST("/orders", { body: { email: "e2e@example.com", tickets: [line, line] } })),
    201,
    "sales sells an order of two",
  );
  const [given, kept] = order.tickets;
  const givenImage = await ticketImage(sales, given.ticketId);
  const givenCode = await readTicketCode(givenImage.body);
  const cancel = async (ticketId) =>
    answer(
      await sales.POST("/tickets/{ticketId}/cancellation", {
        params: { path: { ticketId } },
        body: { reason: "Visitor cannot come" },
      }),
    );
  const refund = expectStatus(await cancel(given.ticketId), 200, "the box office cancels one ticket of the order");
  assert.equal(refund.status, "cancelled");
  assert.deepEqual(refund.cancellation, { source: "box-office", by: "e2e-sales", reason: "Visitor cannot come", refund: { amount: 12 } });
  assert.deepEqual([refund.refund, refund.currency], [{ amount: 12 }, order.currency]);
  assert.equal(expectStatus(await cancel(given.ticketId), 409, "the same cancellation again").type, "/problems/ticket-cancelled");
  const marked = await ticketImage(sales, given.ticketId, givenImage.headers.get("ETag"));
  expectStatus(marked, 200, "its image, revalidated with the old ETag");
  assert.notEqual(marked.headers.get("ETag"), givenImage.headers.get("ETag"), "the cancelled ticket's image has a new ETag");
  assert.equal(expectStatus(await admit(givenCode), 409, "the given-back ticket at the gate").type, "/problems/ticket-cancelled");
  const keptCode = await readTicketCode((await ticketImage(sales, kept.ticketId)).body);
  expectStatus(await admit(keptCode), 201, "the order's other ticket at the gate");
  const orderCancel = answer(
    await sales.POST("/orders/{orderId}/cancellation", { params: { path: { orderId: order.orderId } }, body: {} }),
  );
  assert.equal(expectStatus(orderCancel, 409, "cancelling the rest of the order").type, "/problems/nothing-to-cancel");

  // A gate offline, its clock an hour behind, uploads two scans: one admits, one is a conflict.
  const { eventId: offline } = expectStatus(await event("E2E offline", [today]), 201, "admin creates a fifth event");
  const offlineTicket = expectStatus(await buy(offline, today), 201, "sales buys a ticket for it");
  const offlineCode = await readTicketCode((await ticketImage(sales, offlineTicket.ticketId)).body);
  // What the gate synced before its network went, and its own judgement of each scan.
  const keys = expectStatus(answer(await gate.GET("/gate/keys")), 200, "the gate syncs the keys");
  const config = expectStatus(answer(await gate.GET("/gate/config")), 200, "the gate syncs the coming days' rules");
  const feed = expectStatus(answer(await gate.GET("/gate/revocations")), 200, "the gate syncs the revocations");
  assert.deepEqual(
    feed.revocations.map((r) => r.ticketId).sort(),
    [cancelled.ticketId, stranded.ticketId, given.ticketId].sort(),
    "the feed revokes the cancelled tickets (the deleted event's, the dropped date's, the given-back one)",
  );
  const revoked = feed.revocations.map((r) => r.ticketId);
  const judged = async (scanned) => (await checkTicketCode({ code: scanned, keys, config, revoked })).outcome;
  assert.deepEqual(
    [await judged(offlineCode), await judged(givenCode), await judged(forged), await judged(code)],
    ["admitted", "revoked", "invalid-ticket-code", "admitted"],
    "the gate's verifier: the new ticket and the one admitted online (it cannot know) let in, the cancelled one revoked, the forgery refused",
  );
  log("ok  the gate's verifier judges four codes offline");
  const deviceNow = Date.now() - 60 * 60 * 1000;
  const deviceTime = (minutesAgo) => new Date(deviceNow - minutesAgo * 60 * 1000).toISOString();
  const upload = {
    sentAt: deviceTime(0),
    scans: [
      { scanId: randomUUID(), code: offlineCode, scannedAt: deviceTime(2) },
      { scanId: randomUUID(), code, scannedAt: deviceTime(5) },
    ],
  };
  const uploaded = expectStatus(answer(await gate.POST("/admissions/offline", { body: upload })), 200, "the gate uploads two offline scans");
  assert.deepEqual(
    uploaded.results.map((r) => [r.scanId, r.outcome, r.ticketId]),
    [
      [upload.scans[0].scanId, "admitted", offlineTicket.ticketId],
      [upload.scans[1].scanId, "already-admitted", ticket.ticketId],
    ],
  );
  const corrected = Date.parse(uploaded.results[0].scannedAt) - Date.parse(uploaded.results[0].deviceScannedAt);
  assert.ok(Math.abs(corrected - 60 * 60 * 1000) < 60 * 1000, `the scan's time corrected by an hour, not ${corrected} ms`);
  assert.equal(uploaded.results[0].admittedAt, uploaded.results[0].scannedAt);
  assert.equal(expectStatus(await ticketStatus(offlineTicket.ticketId), 200, "the offline-admitted ticket").status, "admitted");
  const resent = expectStatus(answer(await gate.POST("/admissions/offline", { body: upload })), 200, "the same upload again");
  assert.deepEqual(resent, uploaded);
  const conflicts = expectStatus(
    answer(await admin.GET("/admissions/conflicts", { params: { query: { date: today } } })),
    200,
    "admin reads today's conflicts",
  );
  assert.deepEqual(
    conflicts.map((c) => [c.scanId, c.ticketId, c.outcome, c.gate, c.admittedAt]),
    [[upload.scans[1].scanId, ticket.ticketId, "already-admitted", "e2e-gate", admitted.admittedAt]],
  );

  // The day's attendance.
  const summary = expectStatus(
    answer(await admin.GET("/admissions/summary", { params: { query: { date: today } } })),
    200,
    "admin reads today's attendance",
  );
  assert.deepEqual(
    summary.events.find((e) => e.eventId === eventId),
    { eventId, name: "E2E admission", sold: 1, admitted: 1, cancelled: 0, byCategory: { adult: { sold: 1, admitted: 1, cancelled: 0 } } },
  );
  assert.deepEqual(
    summary.events.find((e) => e.eventId === doomed),
    { eventId: doomed, name: "E2E cancelled", sold: 1, admitted: 0, cancelled: 1, byCategory: { adult: { sold: 1, admitted: 0, cancelled: 1 } } },
  );
  assert.deepEqual(
    summary.events.find((e) => e.eventId === family),
    { eventId: family, name: "E2E box office", sold: 2, admitted: 1, cancelled: 1, byCategory: { adult: { sold: 2, admitted: 1, cancelled: 1 } } },
  );
  assert.deepEqual(
    summary.events.find((e) => e.eventId === offline),
    { eventId: offline, name: "E2E offline", sold: 1, admitted: 1, cancelled: 0, byCategory: { adult: { sold: 1, admitted: 1, cancelled: 0 } } },
  );
  assert.equal(summary.conflicts, 1);
}

runMain(
  () =>
    withLocalServer({ accounts: ACCOUNTS }, async (server, state) => {
      log(`wrangler dev on ${server.origin}`);
      await run(clients(server.origin, state.accounts));
      log("all admission checks passed");
    }),
  USAGE,
);
