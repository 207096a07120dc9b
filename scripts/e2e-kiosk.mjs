// `npm run test:e2e:kiosk`: a ticket kiosk's calls through the project's own
// typed client (museum-api-client) against `wrangler dev`:
//  1. a throw-away local D1 state with one `sales` account, throw-away secrets;
//  2. buy a general ticket for the next Monday–Thursday (open by the weekly
//     schedule) with an Idempotency-Key, and again: the replay, no new ticket;
//  3. fetch its image (200, a PNG, an ETag), then again with If-None-Match: 304;
//  4. a bad purchase comes back as a typed problem (400, validation-error).
// Everything started here is stopped, whatever happens.
import { randomUUID } from "node:crypto";
import { createMuseumClient, getTicketImage } from "museum-api-client";
import { log } from "../tools/lib/cli.mjs";
import { addDays, museumToday, weekday } from "../tools/lib/dates.mjs";
import { prepareLocalState, throwawaySecrets } from "../tools/lib/local-state.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";

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

const state = prepareLocalState({ name: "e2e-kiosk", role: "sales" });
const server = await startWranglerDev({ persistTo: state.persistTo, logLevel: "warn", vars: throwawaySecrets() });
const kiosk = createMuseumClient({ baseUrl: server.origin, username: state.account.name, password: state.account.secret });

let failed = false;
try {
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

  const image = await getTicketImage(kiosk, ticketId);
  expect(image.kind === "image", `GET /tickets/{ticketId}/qr: ${image.kind} ${image.response.status}`);
  expect(PNG_SIGNATURE.every((byte, i) => image.image[i] === byte), "the ticket image is not a PNG");
  expect(image.etag, "the ticket image has no ETag");
  log(`image: ${image.image.length} bytes, ETag ${image.etag}`);
  const again = await getTicketImage(kiosk, ticketId, { etag: image.etag });
  expect(again.kind === "not-modified" && again.response.status === 304, `If-None-Match answered ${again.response.status}`);

  const refused = await kiosk.POST("/tickets", { body: { ticketType: "general", ticketDate: "not-a-date", email: "visitor@example.com" } });
  expect(
    refused.error?.status === 400 && refused.error.type === "/problems/validation-error" && refused.error.errors?.[0]?.path === "ticketDate",
    `a bad date answered ${JSON.stringify(refused.error)}`,
  );
  log("PASS: buy, replay, image 200 then 304, a typed problem");
} catch (error) {
  failed = true;
  console.error(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop();
  state.cleanup();
}
process.exit(failed ? 1 : 0);
