import { beforeEach, describe, expect, it } from "vitest";
import { IMAGE_MEMORY_TTL_MS, verifyTicketCode } from "../../src/ticket-image";
import { workerCodeKeys } from "../support/ticket-codes";
import { countRenders } from "../support/render-count";
import { api, expectProblem, expectValidationError } from "../support/helpers";
import { useClock } from "../support/clock";
import { decodeQrPng } from "../support/qr-decode";
import { buy, createEvent, type PurchaseResponse } from "../tickets/fixtures";

const NOW = "2026-12-01T15:00:00Z";

async function buyTicket(json: Record<string, unknown>): Promise<PurchaseResponse> {
  const res = await buy({ email: "kiosk@example.com", ...json });
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

function fetchImage(ticketId: string, headers: Record<string, string> = {}) {
  return api(`/v1.1/tickets/${ticketId}/qr`, { as: "sales", headers });
}

/** Fetches the image, decodes its QR code and verifies the signed code in it. */
async function scan(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("image/png");
  const png = new Uint8Array(await res.arrayBuffer());
  const token = decodeQrPng(png)?.data;
  expect(token).toBeTruthy();
  const claims = await verifyTicketCode(token!, workerCodeKeys());
  const verified = claims && { ticketId: claims.tid, ticketType: claims.typ, ticketDate: claims.date, category: claims.cat };
  return { png, token: token!, verified };
}

beforeEach(() => useClock(NOW));

describe("GET /tickets/{ticketId}/qr", () => {
  it("returns a PNG whose QR code decodes to a signed token naming the ticket", async () => {
    const ticket = await buyTicket({ ticketType: "general", ticketDate: "2026-12-02" });
    const { token, verified } = await scan(await fetchImage(ticket.ticketId));
    expect(verified).toMatchObject({ ticketId: ticket.ticketId, ticketType: "general", ticketDate: "2026-12-02" });
    expect(token).not.toContain("kiosk");
    expect(token).not.toContain("@");
  });

  it("works for event tickets", async () => {
    const eventId = await createEvent(["2026-12-05"], { name: "A".repeat(200) });
    const ticket = await buyTicket({ ticketType: "event", eventId, ticketDate: "2026-12-05" });
    const { verified } = await scan(await fetchImage(ticket.ticketId));
    expect(verified).toMatchObject({ ticketId: ticket.ticketId, ticketType: "event", ticketDate: "2026-12-05" });
  });

  it("sends a strong ETag, private revalidation, and 304 for If-None-Match", async () => {
    const ticket = await buyTicket({ ticketType: "general", ticketDate: "2026-12-02" });
    const first = await fetchImage(ticket.ticketId);
    const etag = first.headers.get("ETag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get("Cache-Control")).toBe("private, no-cache");
    await first.arrayBuffer();

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await fetchImage(ticket.ticketId, { "If-None-Match": ifNoneMatch });
      expect(again.status).toBe(304);
      expect(again.headers.get("ETag")).toBe(etag);
      expect(await again.text()).toBe("");
    }
    const stale = await fetchImage(ticket.ticketId, { "If-None-Match": '"0123"' });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });

  it("renders once: repeat fetches come from memory, then from the edge cache", async () => {
    const ticket = await buyTicket({ ticketType: "general", ticketDate: "2026-12-02" });
    const counter = countRenders();
    const first = new Uint8Array(await (await fetchImage(ticket.ticketId)).arrayBuffer());
    expect(counter.renders).toBe(1);

    const fromMemory = new Uint8Array(await (await fetchImage(ticket.ticketId)).arrayBuffer());
    expect(counter.renders).toBe(1);
    expect(fromMemory).toEqual(first);

    // The isolate's memory has forgotten the image; the edge cache has not.
    useClock(new Date(Date.parse(NOW) + IMAGE_MEMORY_TTL_MS + 1_000).toISOString());
    const fromEdge = new Uint8Array(await (await fetchImage(ticket.ticketId)).arrayBuffer());
    expect(counter.renders).toBe(1);
    expect(fromEdge).toEqual(first);
  });

  it("marks a ticket of a deleted event cancelled, under a new ETag, still signed", async () => {
    const eventId = await createEvent(["2026-12-05"]);
    const ticket = await buyTicket({ ticketType: "event", eventId, ticketDate: "2026-12-05" });
    const before = await fetchImage(ticket.ticketId);
    const oldEtag = before.headers.get("ETag")!;
    const { png: activePng } = await scan(before);

    expect((await api(`/v1.1/special-events/${eventId}`, { method: "DELETE" })).status).toBe(204);
    const after = await fetchImage(ticket.ticketId, { "If-None-Match": oldEtag });
    expect(after.status).toBe(200);
    expect(after.headers.get("ETag")).not.toBe(oldEtag);
    const { png: cancelledPng, verified } = await scan(after);
    expect(verified?.ticketId).toBe(ticket.ticketId);
    expect(cancelledPng).not.toEqual(activePng);
  });

  it("changes the ETag when the event is renamed (the name is printed)", async () => {
    const eventId = await createEvent(["2026-12-05"]);
    const ticket = await buyTicket({ ticketType: "event", eventId, ticketDate: "2026-12-05" });
    const before = (await fetchImage(ticket.ticketId, { "If-None-Match": "*" })).headers.get("ETag");
    await api(`/v1.1/special-events/${eventId}`, { method: "PATCH", json: { name: "Renamed" } });
    const after = (await fetchImage(ticket.ticketId, { "If-None-Match": "*" })).headers.get("ETag");
    expect(after).not.toBe(before);
  });

  it("answers 404 for an unknown ticket and 400 for a malformed id", async () => {
    await expectProblem(await fetchImage(crypto.randomUUID()), 404);
    await expectValidationError(await fetchImage("not-a-uuid"), "path.ticketId");
    await expectValidationError(await fetchImage("%20"), "path.ticketId");
  });

  it("needs credentials", async () => {
    const ticket = await buyTicket({ ticketType: "general", ticketDate: "2026-12-02" });
    await expectProblem(await api(`/v1.1/tickets/${ticket.ticketId}/qr`, { as: null }), 401);
  });
});
