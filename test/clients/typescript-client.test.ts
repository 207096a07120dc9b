// The TypeScript client (clients/typescript) against the real Worker: its
// generated types come from the document the Worker serves now, and its
// calls work (Basic auth, Idempotency-Key, problem bodies, the image with
// If-None-Match).
import { exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { createMuseumClient, getTicketImage, type MuseumClient } from "museum-api-client";
import { clientDocument } from "../../clients/typescript/generator/client-document.mjs";
import snapshot from "../../clients/typescript/openapi.json";
import { documentFacts } from "../../tools/lib/openapi-facts.mjs";
import { ACCOUNTS, api, testClientIp } from "../support/helpers";
import { useClock } from "../support/clock";

// Tuesday 1 December 2026, 10:00 in New York; the Wednesday after is an open day.
const NOW = "2026-12-01T15:00:00Z";
const WEDNESDAY = "2026-12-02";

function clientAs(account: keyof typeof ACCOUNTS, password: string = ACCOUNTS[account].secret): MuseumClient {
  return createMuseumClient({
    baseUrl: "https://museum.test",
    username: ACCOUNTS[account].name,
    password,
    // Each client its own test address, so a wrong password never throttles another test.
    headers: { "CF-Connecting-IP": testClientIp() },
    fetch: (request) => exports.default.fetch(request),
  });
}

beforeEach(() => useClock(NOW));

describe("the client's OpenAPI snapshot", () => {
  it("is the document the Worker serves (otherwise run `npm run client:generate`)", async () => {
    const res = await api("/v1.1/openapi.json", { as: null });
    expect(res.status).toBe(200);
    expect(await res.json(), "clients/typescript/openapi.json is stale: run `npm run client:generate`").toEqual(snapshot);
  });
});

describe("museum-api-client", () => {
  it("buys a ticket once per Idempotency-Key and revalidates its image with If-None-Match", async () => {
    const client = clientAs("sales");
    const purchase = {
      params: { header: { "idempotency-key": `client-test-${crypto.randomUUID()}` } },
      body: { ticketType: "general", ticketDate: WEDNESDAY, email: "todd@example.com" },
    } as const;
    const first = await client.POST("/tickets", purchase);
    expect(first.response.status).toBe(201);
    expect(first.error).toBeUndefined();
    const ticketId = first.data!.ticketId;
    const replay = await client.POST("/tickets", purchase);
    expect(replay.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.data).toEqual(first.data);

    const image = await getTicketImage(client, ticketId);
    if (image.kind !== "image") throw new Error(`expected the image, got ${image.kind}`);
    expect([...image.image.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(image.etag).toMatch(/^".+"$/);
    const unchanged = await getTicketImage(client, ticketId, { etag: image.etag });
    expect(unchanged.kind).toBe("not-modified");
    expect(unchanged.response.status).toBe(304);
    const stale = await getTicketImage(client, ticketId, { etag: '"not-this-one"' });
    expect(stale.kind).toBe("image");
  });

  it("hands back problem+json bodies as typed errors", async () => {
    const invalid = await clientAs("sales").POST("/tickets", {
      body: { ticketType: "general", ticketDate: "2026-02-30", email: "todd@example.com" },
    });
    expect(invalid.data).toBeUndefined();
    expect(invalid.error).toMatchObject({ status: 400, type: "/problems/validation-error", errors: [{ path: "ticketDate" }] });

    const missing = await getTicketImage(clientAs("sales"), crypto.randomUUID());
    expect(missing.kind).toBe("problem");
    expect(missing.kind === "problem" && missing.problem).toMatchObject({ status: 404, type: "about:blank" });

    const forbidden = await clientAs("sales").DELETE("/special-events/{eventId}", { params: { path: { eventId: crypto.randomUUID() } } });
    expect(forbidden.error).toMatchObject({ status: 403 });

    const wrongPassword = await clientAs("sales", "not-the-secret").GET("/special-events");
    expect(wrongPassword.error).toMatchObject({ status: 401, title: "Unauthorized" });
  });

  it("calls every operation it types where the service serves it: none answers the unknown route's 404 or a 405", async () => {
    const client = clientAs("admin");
    const typed = documentFacts(clientDocument(snapshot)).operations as { method: string; path: string }[];
    expect(typed.length).toBeGreaterThan(30);
    const unreachable: string[] = [];
    for (const { method, path } of typed) {
      // Any id: an unknown one answers the route's own 404 or a 400, never the router's.
      const filled = path.replace(/\{[^}]+\}/g, crypto.randomUUID());
      const { error, response } = await client.request(method as "get", filled as "/museum-hours", {} as never);
      const detail: unknown = (error as { detail?: unknown } | undefined)?.detail;
      if (response.status === 405 || (response.status === 404 && String(detail).startsWith("No resource at"))) {
        unreachable.push(`${method.toUpperCase()} ${path}: ${response.status} at ${new URL(response.url).pathname}`);
      }
    }
    expect(unreachable).toEqual([]);
  });

  it("sends non-ASCII credentials as UTF-8", async () => {
    // No account has this name; the service must decode it and answer 401, not 400.
    const res = await createMuseumClient({
      baseUrl: "https://museum.test/",
      username: "kasse-straße",
      password: "geheim",
      headers: { "CF-Connecting-IP": testClientIp() },
      fetch: (request) => exports.default.fetch(request),
    }).GET("/museum-hours");
    expect(res.response.status).toBe(401);
  });
});
