// Type tests of the client, checked by `npm run typecheck` (tsc) and never
// run: every call below must compile, and every `@ts-expect-error` line must
// be an error. When a route's schema changes and `npm run client:generate`
// follows it, the calls that no longer fit fail here.
import { checkTicketCode, createMuseumClient, getTicketImage, type Problem, type Schemas } from "museum-api-client";

const client = createMuseumClient({ baseUrl: "https://museum.example", username: "kiosk-1", password: "secret" });

export async function buyThenImage(ticketDate: string): Promise<Uint8Array | undefined> {
  const bought = await client.POST("/tickets", {
    params: { header: { "idempotency-key": "kiosk-1-0001" } },
    body: { ticketType: "general", ticketDate, email: "todd@example.com" },
  });
  if (bought.error) {
    const problem: Problem = bought.error;
    return problem.status === 409 ? undefined : undefined;
  }
  const ticket: Schemas["BuyMuseumTicketsResponse"] = bought.data;
  const ticketId: string = ticket.ticketId;
  const first = await getTicketImage(client, ticketId);
  if (first.kind !== "image") return undefined;
  const again = await getTicketImage(client, ticketId, { etag: first.etag });
  if (again.kind === "problem") {
    const type: string = again.problem.type;
    return type === "about:blank" ? undefined : undefined;
  }
  return again.kind === "image" ? again.image : first.image;
}

export async function admit(code: string): Promise<string> {
  const { data, error, response } = await client.POST("/admissions", { body: { code } });
  if (data) return `${data.ticketId} admitted at ${data.admittedAt} by ${data.gate}`;
  if (response.status !== 409 && response.status !== 422) return error.detail;
  const refusal = error as Schemas["AdmissionProblem"];
  switch (refusal.type) {
    case "/problems/already-admitted":
      return `already used at ${refusal.admittedAt ?? "?"} by ${refusal.gate ?? "?"}`;
    case "/problems/not-valid-today":
      return `valid on ${refusal.ticketDate ?? "?"}`;
    case "/problems/too-early":
      return `entry from ${refusal.entryTime ?? "?"}`;
    case "/problems/too-late":
      return `closed at ${refusal.timeClose ?? "?"}`;
    case "/problems/ticket-cancelled":
    case "/problems/invalid-ticket-code":
      return refusal.detail;
    // @ts-expect-error no such refusal type
    case "/problems/expired":
      return "";
  }
}

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error an admission sends the scanned code, nothing else
  await client.POST("/admissions", { body: { ticketId: "3be6453c-03eb-4357-ae5a-984a0e574a54" } });
  // @ts-expect-error ticketType is "general" or "event"
  await client.POST("/tickets", { body: { ticketType: "vip", ticketDate: "2030-01-07", email: "a@example.com" } });
  // @ts-expect-error a purchase needs the buyer's email
  await client.POST("/tickets", { body: { ticketType: "general", ticketDate: "2030-01-07" } });
  // @ts-expect-error the path parameter is required
  await client.GET("/special-events/{eventId}", {});
  // @ts-expect-error the look-up by code needs its confirmationCode
  await client.GET("/tickets");
  // @ts-expect-error no such route
  await client.GET("/visitors");
  // @ts-expect-error /healthz is served at the root, outside /v1.1: not a client call (it would request /v1.1/healthz)
  await client.GET("/healthz");
  // @ts-expect-error the index is outside /v1.1 too
  await client.GET("/");
  // @ts-expect-error and so is the API reference page
  await client.GET("/docs");
  // @ts-expect-error price is a number
  await client.POST("/special-events", { body: { name: "N", location: "L", eventDescription: "D", dates: ["2030-01-07"], price: "12" } });
  const listed = await client.GET("/special-events", { params: { query: { limit: 5 } } });
  if (listed.data) {
    // @ts-expect-error an event has no field "title"
    listed.data[0]?.title;
  }
  const hook = await client.POST("/webhooks", { body: { url: "https://partner.example/hook" } });
  if (hook.error) {
    // @ts-expect-error a problem's status is a number
    const status: string = hook.error.status;
    void status;
  }
}

export async function checkOffline(code: string, revoked: Set<string>): Promise<string> {
  const keys = await client.GET("/gate/keys");
  const config = await client.GET("/gate/config");
  if (!keys.data || !config.data) return "not synced";
  const check = await checkTicketCode({ code, keys: keys.data, config: config.data, revoked, now: new Date() });
  switch (check.outcome) {
    case "too-late":
      return `closed at ${check.timeClose}`;
    case "invalid-ticket-code":
      // @ts-expect-error a code that is not genuine names no ticket
      return check.ticketId;
    default:
      return `${check.outcome}: ${check.ticketId} (${check.category})`;
  }
}
