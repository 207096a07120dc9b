#!/usr/bin/env node
// `npm run test:e2e:kiosk`: a ticket kiosk's calls through the project's own
// typed client (museum-api-client) against `wrangler dev`:
//  1. a throw-away local D1 state with one `sales` account, throw-away secrets;
//  2. buy a general ticket for the next Monday–Thursday (open by the weekly
//     schedule) with an Idempotency-Key, and again: the replay, no new ticket;
//  3. fetch its image (200, a PNG, an ETag) and read its QR code, then fetch
//     it again with If-None-Match: 304;
//  4. a bad purchase comes back as a typed problem (400, validation-error);
//  5. a family's order of four, two adults and two children (the admin makes
//     the sample `child` category: accompanied, free), all or nothing, with an
//     Idempotency-Key; each ticket priced by its category; then each of its
//     four images fetched at once and its QR code read: every image shows its
//     own ticket; the order's status lists the four with their categories;
//  6. on a day with timed entry (made so by an admin): read the availability,
//     buy for a slot, verify its QR code with the gate's keys (day and entry
//     time in the signed payload), and when the slot is sold out, buy one of
//     the `availableEntryTimes` offered and read its image's QR code.
// Every ticket bought has its QR code read as a gate would read it printed:
// by two decoders, jsQR and ZXing, at the image's size and at receipt width
// (the card's own), all alike (tools/lib/ticket-qr.mjs).
// Everything started here is stopped, whatever happens.
import { randomUUID } from "node:crypto";
import { createMuseumClient, getTicketImage } from "museum-api-client";
import { verifyTicketCode } from "museum-api-client/gate";
import { exitOnHelp, fetchWithin, log } from "../tools/lib/cli.mjs";
import { addDays, museumToday, weekday } from "../tools/lib/dates.mjs";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { readTicketCode, ticketIdOfCode } from "../tools/lib/ticket-qr.mjs";

exitOnHelp(`usage: npm run test:e2e:kiosk
A kiosk's calls through the typed client against wrangler dev (a throw-away local state).`);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** The first day after today that the weekly schedule opens (Monday–Thursday). */
async function nextWeekdayOpenDay() {
  let day = addDays(await museumToday(), 1);
  while (![1, 2, 3, 4].includes(weekday(day))) day = addDays(day, 1);
  return day;
}

const KIOSK = "e2e-kiosk";
/** The museum's admin, who gives a day timed entry. */
const ADMIN = "e2e-kiosk-admin";

/** The ticket's image, whose QR code reads (both decoders, both sizes) as a code of that ticket. */
async function expectImageOf(kiosk, ticketId) {
  const image = await getTicketImage(kiosk, ticketId);
  expect(image.kind === "image", `GET /tickets/{ticketId}/qr: ${image.kind} ${image.response.status}`);
  expect(PNG_SIGNATURE.every((byte, i) => image.image[i] === byte), "the ticket image is not a PNG");
  const shown = ticketIdOfCode(await readTicketCode(image.image));
  expect(shown === ticketId, `ticket ${ticketId}'s image shows ticket ${shown}`);
  return image;
}

/** A day with timed entry (10:00 and 11:00, one ticket each); a kiosk buys a slot and handles a full one. */
async function timedEntry({ kiosk, office }, day) {
  const plan = { closed: false, timeOpen: "10:00", timeClose: "12:00", entrySlotMinutes: 60, slotCapacity: 1 };
  const set = await office.PUT("/museum-hours/exceptions/{date}", { params: { path: { date: day } }, body: plan });
  expect(set.response.status === 201, `PUT exception answered ${set.response.status}: ${JSON.stringify(set.error)}`);
  const before = await kiosk.GET("/availability", { params: { query: { date: day } } });
  const slots = before.data?.general.entrySlots?.map((slot) => `${slot.entryTime}:${slot.available}`);
  expect(slots?.join(",") === "10:00:1,11:00:1", `availability before: ${JSON.stringify(before.data ?? before.error)}`);

  const buy = (entryTime) => kiosk.POST("/tickets", { body: { ticketType: "general", ticketDate: day, entryTime, email: "visitor@example.com" } });
  const first = await buy("10:00");
  expect(first.response.status === 201 && first.data.entryTime === "10:00", `a timed purchase answered ${JSON.stringify(first.data ?? first.error)}`);
  const image = await getTicketImage(kiosk, first.data.ticketId);
  expect(image.kind === "image", `the timed ticket's image: ${image.kind}`);
  const code = await readTicketCode(image.image);
  const keys = await office.GET("/gate/keys");
  const claims = await verifyTicketCode(code, keys.data);
  expect(
    claims?.tid === first.data.ticketId && claims.typ === "general" && claims.date === day && claims.ent === "10:00",
    `the timed ticket's QR code is a genuine code of its ticket, day and entry time: ${code} (claims ${JSON.stringify(claims)})`,
  );

  const full = await buy("10:00");
  expect(full.response.status === 409 && full.error?.type === "/problems/sold-out", `a full slot answered ${JSON.stringify(full.error)}`);
  const offered = full.error.availableEntryTimes ?? [];
  expect(offered.join(",") === "11:00", `sold-out offered ${JSON.stringify(offered)}`);
  const second = await buy(offered[0]);
  expect(second.response.status === 201 && second.data.entryTime === "11:00", `buying the offered slot answered ${second.response.status}`);
  await expectImageOf(kiosk, second.data.ticketId);
  log(`timed entry on ${day}: 10:00 sold, then sold out; bought the offered ${offered[0]}`);
}

/** A family's order of four for `day` (two adults, two children), and every ticket's image right after the sale. */
async function familyOrder({ kiosk, office }, day) {
  const child = await office.PUT("/ticket-categories/{categoryId}", {
    params: { path: { categoryId: "child" } },
    body: { name: "Child", price: 0, accompanied: true, unitType: "CHILD" },
  });
  expect([200, 201].includes(child.response.status), `PUT /ticket-categories/child answered ${child.response.status}: ${JSON.stringify(child.error)}`);
  const categories = ["adult", "child", "adult", "child"];
  const order = {
    params: { header: { "idempotency-key": `e2e-kiosk-order-${randomUUID()}` } },
    body: { email: "family@example.com", tickets: categories.map((category) => ({ ticketType: "general", ticketDate: day, category })) },
  };
  const sold = await kiosk.POST("/orders", order);
  expect(sold.response.status === 201, `POST /orders answered ${sold.response.status}: ${JSON.stringify(sold.error)}`);
  const { orderId, tickets, totalPrice, currency } = sold.data;
  expect(sold.response.headers.get("Location") === `/v1.1/orders/${orderId}`, "the order has no Location");
  expect(tickets.length === 4 && new Set(tickets.map((t) => t.ticketId)).size === 4, "the order has not four tickets");
  expect(tickets.map((t) => `${t.category}:${t.price}`).join() === "adult:25,child:0,adult:25,child:0", `the order's prices: ${JSON.stringify(tickets)}`);
  const cents = tickets.reduce((sum, t) => sum + Math.round(t.price * 100), 0);
  expect(Math.round(totalPrice * 100) === cents && /^[A-Z]{3}$/.test(currency), `totalPrice ${totalPrice} ${currency} for ${cents} cents`);
  const replay = await kiosk.POST("/orders", order);
  expect(replay.response.headers.get("Idempotent-Replayed") === "true" && replay.data?.orderId === orderId, "the order's retry was not a replay");

  const images = await Promise.all(tickets.map((t) => getTicketImage(kiosk, t.ticketId)));
  for (const [i, image] of images.entries()) {
    expect(image.kind === "image", `order ticket ${i}'s image: ${image.kind} ${image.response.status}`);
    const shown = ticketIdOfCode(await readTicketCode(image.image));
    expect(shown === tickets[i].ticketId, `order ticket ${i}'s image shows ticket ${shown}`);
  }
  const status = await kiosk.GET("/orders/{orderId}", { params: { path: { orderId } } });
  expect(
    status.response.status === 200 &&
      status.data.tickets.every((t, i) => t.ticketId === tickets[i].ticketId && t.category === categories[i] && t.status === "valid"),
    `GET /orders/{orderId}: ${JSON.stringify(status.data ?? status.error)}`,
  );
  log(`order of two adults and two children for ${day}: ${totalPrice} ${currency}, four images, each with its own ticket's code`);
}

/** Every call of the kiosk (and its admin); throws at the first unmet expectation. */
async function run(clients) {
  const { kiosk } = clients;
  const ticketDate = await nextWeekdayOpenDay();
  const purchase = {
    params: { header: { "idempotency-key": `e2e-kiosk-${randomUUID()}` } },
    body: { ticketType: "general", ticketDate, email: "visitor@example.com" },
  };
  const bought = await kiosk.POST("/tickets", purchase);
  expect(bought.response.status === 201, `POST /tickets answered ${bought.response.status}: ${JSON.stringify(bought.error)}`);
  const { ticketId, confirmationCode } = bought.data;
  log(`bought ${confirmationCode} for ${ticketDate}`);
  const replay = await kiosk.POST("/tickets", purchase);
  expect(replay.response.headers.get("Idempotent-Replayed") === "true", "the retry with the same Idempotency-Key was not a replay");
  expect(replay.data?.ticketId === ticketId, "the replay named another ticket");

  const image = await expectImageOf(kiosk, ticketId);
  expect(image.etag, "the ticket image has no ETag");
  log(`image: ${image.image.length} bytes, ETag ${image.etag}`);
  const again = await getTicketImage(kiosk, ticketId, { etag: image.etag });
  expect(again.kind === "not-modified" && again.response.status === 304, `If-None-Match answered ${again.response.status}`);

  const refused = await kiosk.POST("/tickets", { body: { ticketType: "general", ticketDate: "not-a-date", email: "visitor@example.com" } });
  expect(
    refused.error?.status === 400 && refused.error.type === "/problems/validation-error" && refused.error.errors?.[0]?.path === "ticketDate",
    `a bad date answered ${JSON.stringify(refused.error)}`,
  );
  await familyOrder(clients, ticketDate);
  await timedEntry(clients, addDays(ticketDate, 7));
}

let failed = false;
await withLocalServer({ accounts: { [KIOSK]: "sales", [ADMIN]: "admin" } }, async (server, { accounts }) => {
  const fetch = fetchWithin(60_000);
  const client = ({ name, secret }) => createMuseumClient({ baseUrl: server.origin, username: name, password: secret, fetch });
  try {
    await run({ kiosk: client(accounts[KIOSK]), office: client(accounts[ADMIN]) });
    log("PASS: buy, replay, image 200 then 304, a typed problem, an order of four and its images, a timed slot and a sold-out one's offer");
  } catch (error) {
    failed = true;
    console.error(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
  }
});
process.exit(failed ? 1 : 0);
