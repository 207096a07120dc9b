import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  IMAGE_MEMORY_TTL_MS,
  ensureResvg,
  loadTicketImage,
  prerenderSoldTickets,
  renderTicketPng,
  codeSignerAt,
  signTicketCode,
  ticketImageEtag,
} from "../../src/ticket-image";
import { lookUpTicketForImage, type TicketForImage } from "../../src/ticket-image/lookup";
import { useClock } from "../support/clock";
import { ACCOUNTS, api } from "../support/helpers";
import { countRenders } from "../support/render-count";
import { MEASURED_CLIENT, roundTripsOf, warmLogin } from "../support/round-trips";
import { workerCodeKeys } from "../support/ticket-codes";
import { setTestVars, settleWaitUntil } from "../support/worker";
import { buy, createEvent, order, type OrderResponse, type PurchaseResponse } from "../tickets/fixtures";

const NOW = "2026-12-01T15:00:00Z";
/** Reads any ticket, whoever sold it. */
const ADMIN = ACCOUNTS.admin;

async function sell(json: Record<string, unknown>, key?: string) {
  const res = await buy({ email: "kiosk@example.com", ...json }, key === undefined ? {} : { key });
  expect(res.status).toBe(201);
  const body = (await res.json()) as PurchaseResponse;
  // The prerender runs after the response; the kiosk's fetch is measured once it is done.
  await settleWaitUntil();
  return { body, replayed: res.headers.get("Idempotent-Replayed") === "true" };
}

/** The kiosk's fetch of the image (its login remembered); with the D1 round trips it made. */
async function fetchImage(ticketId: string) {
  await warmLogin("sales");
  const { res, roundTrips } = await roundTripsOf(() =>
    api(`/v1.1/tickets/${ticketId}/qr`, { as: "sales", headers: MEASURED_CLIENT }),
  );
  expect(res.status).toBe(200);
  return { etag: res.headers.get("ETag"), png: new Uint8Array(await res.arrayBuffer()), roundTrips };
}

/** The sold ticket `ticketId` as its image shows it, read from D1. */
async function storedTicket(ticketId: string): Promise<TicketForImage> {
  const found = await lookUpTicketForImage(env.DB, ticketId, ADMIN, false);
  if (found?.state !== "sold") throw new Error(`ticket ${ticketId} is not sold`);
  return found.ticket;
}

/** What a render from the stored ticket, with nothing cached, gives: its ETag and its PNG. */
async function freshRender(ticketId: string) {
  const ticket = await storedTicket(ticketId);
  const signer = codeSignerAt(workerCodeKeys(), new Date());
  return { etag: await ticketImageEtag(ticket, signer), png: await renderTicketPng(ticket, await signTicketCode(ticket, signer)) };
}

beforeEach(() => useClock(NOW));
afterEach(() => setTestVars());

describe('PRERENDER_TICKET_IMAGES = "true"', () => {
  beforeEach(() => setTestVars({ PRERENDER_TICKET_IMAGES: "true" }));

  it.each([
    ["general", async () => ({ ticketType: "general", ticketDate: "2026-12-02" })],
    ["event", async () => ({ ticketType: "event", eventId: await createEvent(["2026-12-05"]), ticketDate: "2026-12-05" })],
  ])("renders a sold %s ticket once, after the response; the first fetch draws nothing and reads no D1", async (_, purchase) => {
    const json = await purchase();
    const counter = countRenders();
    const { body } = await sell(json);
    expect(counter.renders).toBe(1);

    const fetched = await fetchImage(body.ticketId);
    expect(counter.renders).toBe(1);
    expect(fetched.roundTrips).toBe(0);

    const fresh = await freshRender(body.ticketId);
    expect(fetched.etag).toBe(fresh.etag);
    expect(fetched.png).toEqual(fresh.png);
  });

  it("renders each ticket of an order once, after the response; each first fetch draws nothing and reads no D1", async () => {
    const counter = countRenders();
    const lines = Array.from({ length: 4 }, () => ({ ticketType: "general", ticketDate: "2026-12-02" }));
    const res = await order({ email: "family@example.com", tickets: lines });
    expect(res.status).toBe(201);
    const { tickets } = (await res.json()) as OrderResponse;
    await settleWaitUntil();
    expect(counter.renders).toBe(4);

    for (const { ticketId } of tickets) {
      const fetched = await fetchImage(ticketId);
      expect(fetched.roundTrips).toBe(0);
      expect(fetched.etag).toBe((await freshRender(ticketId)).etag);
    }
    expect(counter.renders).toBe(4 + 4); // the fresh renders of the comparison only
  });

  it("starts no render within the microtasks that follow the sale: the response leaves first", async () => {
    setTestVars({ PRERENDER_TICKET_IMAGES: "false" });
    const { body } = await sell({ ticketType: "general", ticketDate: "2026-12-02" });
    await ensureResvg();
    const counter = countRenders();
    const prerendered = prerenderSoldTickets([{ ...body, category: "adult", categoryName: "Adult" }], ACCOUNTS.sales.name, codeSignerAt(workerCodeKeys(), new Date()));
    // Microtasks only (the crypto awaits resolve as such): a render that did not wait for a timer would run here.
    for (let i = 0; i < 1_000; i++) await Promise.resolve();
    expect(counter.renders).toBe(0);
    await prerendered;
    expect(counter.renders).toBe(1);
  });

  it("a fetch that arrives before the pre-render began and misses the edge cache does not draw the image a second time", async () => {
    setTestVars({ PRERENDER_TICKET_IMAGES: "false" });
    const { body } = await sell({ ticketType: "general", ticketDate: "2026-12-02" });
    const ticket = await storedTicket(body.ticketId);
    const signer = codeSignerAt(workerCodeKeys(), new Date());
    const etag = await ticketImageEtag(ticket, signer);
    await ensureResvg();
    const counter = countRenders();
    const prerendered = prerenderSoldTickets([{ ...body, category: "adult", categoryName: "Adult" }], ACCOUNTS.sales.name, signer);
    // The fetch's edge-cache lookup misses, and answers only once the pre-render is done.
    vi.spyOn(caches.default, "match").mockImplementation(async () => {
      await prerendered;
      return undefined;
    });
    const writes: Promise<unknown>[] = [];
    const fetched = await loadTicketImage(ticket, signer, etag, (write) => writes.push(write));
    await Promise.all(writes);
    expect(counter.renders).toBe(1);
    expect(fetched.png).toEqual((await freshRender(body.ticketId)).png);
  });

  it("stores the image in the edge cache too: found there once the isolate's memory has let it go", async () => {
    const counter = countRenders();
    const { body } = await sell({ ticketType: "general", ticketDate: "2026-12-02" });
    useClock(new Date(Date.parse(NOW) + IMAGE_MEMORY_TTL_MS + 1_000).toISOString());
    const fetched = await fetchImage(body.ticketId);
    expect(counter.renders).toBe(1);
    expect(fetched.png).toEqual((await freshRender(body.ticketId)).png);
  });

  it("does not render again for an idempotent replay", async () => {
    const counter = countRenders();
    const purchase = { ticketType: "general", ticketDate: "2026-12-02" };
    const first = await sell(purchase, "prerender-replay");
    expect(first.replayed).toBe(false);
    expect(counter.renders).toBe(1);
    const again = await sell(purchase, "prerender-replay");
    expect(again.replayed).toBe(true);
    expect(again.body.ticketId).toBe(first.body.ticketId);
    expect(counter.renders).toBe(1);
  });

  it("renders nothing for a refused sale", async () => {
    const counter = countRenders();
    const res = await buy({ ticketType: "general", ticketDate: "2026-11-30", email: "kiosk@example.com" });
    expect(res.status).toBe(400);
    await settleWaitUntil();
    expect(counter.renders).toBe(0);
  });
});

describe('PRERENDER_TICKET_IMAGES = "false"', () => {
  beforeEach(() => setTestVars({ PRERENDER_TICKET_IMAGES: "false" }));

  it("renders nothing at the sale; the first fetch renders the same image", async () => {
    const counter = countRenders();
    const { body } = await sell({ ticketType: "general", ticketDate: "2026-12-02" });
    expect(counter.renders).toBe(0);

    const fetched = await fetchImage(body.ticketId);
    expect(counter.renders).toBe(1);
    expect(fetched.roundTrips).toBe(1);
    expect(fetched.etag).toBe((await freshRender(body.ticketId)).etag);
  });
});
