// The look-up by confirmation code (contract: "After the sale"), through the
// real Worker and D1: matched trimmed and in any case, scoped as every
// ticket read is, and refused when malformed or missing.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type AccountKey, api, expectProblem, expectValidationError, plusDays, todayInZone } from "../support/helpers";
import { buy, order, type OrderResponse, type PurchaseResponse, type TicketStatusJson } from "./fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);
let nextDay = 40;

async function openDay(): Promise<string> {
  const date = plusDays(TODAY, nextDay++);
  const res = await api(`/v1.1/museum-hours/exceptions/${date}`, { method: "PUT", json: { closed: false, timeOpen: "09:00", timeClose: "18:00" } });
  expect(res.status).toBe(201);
  return date;
}

async function sold(as: AccountKey = "sales"): Promise<PurchaseResponse> {
  const res = await buy({ ticketType: "general", ticketDate: await openDay(), email: "visitor@example.com" }, { as });
  expect(res.status).toBe(201);
  return (await res.json()) as PurchaseResponse;
}

const lookUp = (code: string, as: AccountKey = "sales") => api(`/v1.1/tickets?confirmationCode=${encodeURIComponent(code)}`, { as });

describe("GET /tickets?confirmationCode=", () => {
  it("answers the ticket's status, matched trimmed and in any case", async () => {
    const ticket = await sold();
    const expected = (await (await api(`/v1.1/tickets/${ticket.ticketId}`, { as: "sales" })).json()) as TicketStatusJson;
    for (const code of [ticket.confirmationCode, `  ${ticket.confirmationCode.toUpperCase()}\t`, `Ticket-${ticket.confirmationCode.slice(7)}`]) {
      const res = await lookUp(code);
      expect(res.status).toBe(200);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      expect(await res.json()).toEqual(expected);
    }
  });

  it("names the order of a ticket bought in one", async () => {
    const res = await order({ email: "family@example.com", tickets: [{ ticketType: "general", ticketDate: await openDay() }] });
    const bought = (await res.json()) as OrderResponse;
    const status = (await (await lookUp(bought.tickets[0]!.confirmationCode)).json()) as TicketStatusJson;
    expect(status).toMatchObject({ ticketId: bought.tickets[0]!.ticketId, orderId: bought.orderId, status: "valid" });
  });

  it("admin and box-office find any ticket; another sales account's is 404, exactly as an unknown code; a gate 403", async () => {
    const ticket = await sold();
    expect((await lookUp(ticket.confirmationCode, "admin")).status).toBe(200);
    expect((await lookUp(ticket.confirmationCode, "boxOffice")).status).toBe(200);
    const hidden = await expectProblem(await lookUp(ticket.confirmationCode, "kiosk"), 404);
    const unknown = await expectProblem(await lookUp("ticket-general-zzzzzz-zzzzz", "kiosk"), 404);
    expect({ ...hidden, requestId: undefined }).toEqual({ ...unknown, requestId: undefined });
    // The code is as good as the ticket: it is never echoed.
    expect(JSON.stringify(hidden)).not.toContain(ticket.confirmationCode.slice(-11));
    await expectProblem(await lookUp(ticket.confirmationCode, "gate"), 403);
  });

  it("refuses a missing or malformed code: 400 naming `confirmationCode`", async () => {
    await expectValidationError(await api("/v1.1/tickets", { as: "sales" }), "query.confirmationCode");
    for (const code of ["", "   ", "ticket-general-abc", "ticket-vip-abcdef-12345", "ticket-general-abcdef-12345x", "ticket-general-abcd_f-12345", "x".repeat(300)]) {
      const problem = await expectValidationError(await lookUp(code), "query.confirmationCode");
      if (code.trim() !== "") expect(JSON.stringify(problem)).not.toContain(code.trim());
    }
  });
});
