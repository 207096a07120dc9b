// Security headers on every response (problem responses included) and CORS
// off by default, with an allow-list from configuration.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { injectD1Faults } from "../support/d1-faults";
import { parseAllowedOrigins } from "../../src/middleware/cors";
import { useClock } from "../support/clock";
import { ACCOUNTS, api, authHeader, basic, expectFailureLogs, nextWeekday, plusDays, todayInZone } from "../support/helpers";

// The 500 and 503 below log an error line each, as they should.
expectFailureLogs();

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

function expectSecurityHeaders(res: Response, { cacheControl = "no-store", csp = API_CSP } = {}) {
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  expect(res.headers.get("Content-Security-Policy")).toBe(csp);
  expect(res.headers.get("Cache-Control")).toBe(cacheControl);
  expect(res.headers.get("X-Frame-Options")).toBe("DENY");
  expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
  expect(res.headers.get("Strict-Transport-Security")).toMatch(/^max-age=\d+/);
}

/** A general ticket date the museum is open on (a Monday, at least a week ahead). */
function openDay(): string {
  return nextWeekday(plusDays(todayInZone(env.MUSEUM_TIMEZONE), 8), 1);
}

describe("security headers", () => {
  it("are on success responses: JSON, the purchase (buyer data), health", async () => {
    expectSecurityHeaders(await api("/", { as: null }));
    expectSecurityHeaders(await api("/healthz", { as: null }));
    expectSecurityHeaders(await api("/v1.1/museum-hours"));
    expectSecurityHeaders(await api("/v1.1/openapi.json", { as: null }));
    const purchase = await api("/v1.1/tickets", {
      method: "POST",
      as: "sales",
      json: { ticketType: "general", ticketDate: openDay(), email: "buyer@example.com", phone: "+1 555 0100" },
    });
    expect(purchase.status).toBe(201);
    expectSecurityHeaders(purchase);
  });

  it("are on every problem response, whichever path produced it", async () => {
    const cases: [string, Promise<Response>, number][] = [
      ["401 (auth middleware)", api("/v1.1/museum-hours", { as: null }), 401],
      ["403 (role)", api("/v1.1/museum-hours/schedule", { as: "sales" }), 403],
      ["404 (not-found handler)", api("/no/such/path", { as: null }), 404],
      ["404 (handler)", api(`/v1.1/special-events/${crypto.randomUUID()}`), 404],
      ["405 (method-not-allowed)", api("/v1.1/museum-hours", { method: "DELETE" }), 405],
      ["400 (validation hook)", api("/v1.1/special-events?limit=0"), 400],
      ["400 (malformed JSON)", api("/v1.1/special-events", { method: "POST", body: "{", headers: { "Content-Type": "application/json" } }), 400],
      ["413 (body limit)", api("/v1.1/special-events", { method: "POST", body: "x".repeat(20_000), headers: { "Content-Type": "application/json" } }), 413],
      ["415 (json-body)", api("/v1.1/special-events", { method: "POST", body: "{}", headers: { "Content-Type": "text/plain" } }), 415],
    ];
    for (const [label, pending, status] of cases) {
      const res = await pending;
      expect(res.status, label).toBe(status);
      expect(res.headers.get("Content-Type"), label).toBe("application/problem+json");
      expectSecurityHeaders(res);
    }
  });

  it("are on 429, 500 and 503 from the error handler", async () => {
    const ip = "192.0.2.201";
    for (let i = 0; i < Number(env.LOGIN_FAILURE_BUDGET); i++) {
      await api("/v1.1/museum-hours", { as: null, headers: { Authorization: basic(ACCOUNTS.admin.name, "nope"), "CF-Connecting-IP": ip } });
    }
    const throttled = await api("/v1.1/museum-hours", { headers: { "CF-Connecting-IP": ip } });
    expect(throttled.status).toBe(429);
    expectSecurityHeaders(throttled);

    injectD1Faults({ on: "all", sql: "museum_weekly_hours", message: "an unexpected bug" });
    const failed = await api("/v1.1/museum-hours");
    expect(failed.status).toBe(500);
    expectSecurityHeaders(failed);

    injectD1Faults({ on: "all", sql: "museum_weekly_hours" });
    const unavailable = await api("/v1.1/museum-hours");
    expect(unavailable.status).toBe(503);
    expectSecurityHeaders(unavailable);
  });

  it("a handler's own Cache-Control and CSP win: the ticket image, /docs", async () => {
    const purchase = await api("/v1.1/tickets", {
      method: "POST",
      as: "sales",
      json: { ticketType: "general", ticketDate: openDay(), email: "img@example.com" },
    });
    const { ticketId } = (await purchase.json()) as { ticketId: string };
    const image = await api(`/v1.1/tickets/${ticketId}/qr`, { as: "sales" });
    expect(image.status).toBe(200);
    expectSecurityHeaders(image, { cacheControl: "private, no-cache" });

    const docs = await api("/docs", { as: null });
    if (docs.status === 200) {
      // The docs page sets its own, wider policy (scripts from 'self').
      expect(docs.headers.get("Content-Security-Policy")).not.toBe(API_CSP);
      expect(docs.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
      expect(docs.headers.get("X-Content-Type-Options")).toBe("nosniff");
    }
  });
});

const KIOSK = "https://kiosk.museum.test";
const SHOP = "https://shop.museum.test";

/** The app with another CORS configuration than wrangler.toml's (which is empty). */
async function withOrigins(allowed: string, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(request, { ...env, CORS_ALLOWED_ORIGINS: allowed }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function corsHeaders(res: Response): string[] {
  return [...res.headers.keys()].filter((name) => name.startsWith("access-control-"));
}

function preflight(origin: string, path = "/v1.1/tickets") {
  return new Request(`https://museum.test${path}`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
    },
  });
}

describe("CORS", () => {
  it("is off by default: wrangler.toml allows no origin, and no response carries a CORS header", async () => {
    expect(env.CORS_ALLOWED_ORIGINS).toBe("");
    const get = await api("/v1.1/museum-hours", { headers: { Origin: KIOSK } });
    expect(get.status).toBe(200);
    expect(corsHeaders(get)).toEqual([]);
    const options = await api("/v1.1/tickets", {
      method: "OPTIONS",
      as: null,
      headers: { Origin: KIOSK, "Access-Control-Request-Method": "POST" },
    });
    expect(corsHeaders(options)).toEqual([]);
    expect(options.status).not.toBe(204);
  });

  it("parses the allow-list: comma-separated exact origins, blanks and trailing slashes ignored", () => {
    expect([...parseAllowedOrigins(` ${KIOSK}, ,${SHOP}/ `)]).toEqual([KIOSK, SHOP]);
    expect(parseAllowedOrigins("").size).toBe(0);
    expect(parseAllowedOrigins(undefined).size).toBe(0);
  });

  it("answers an allowed origin's preflight with 204 before authentication", async () => {
    const res = await withOrigins(`${KIOSK},${SHOP}`, preflight(SHOP));
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(SHOP);
    expect(res.headers.get("Access-Control-Allow-Methods")?.split(",")).toEqual(
      expect.arrayContaining(["GET", "POST", "PUT", "PATCH", "DELETE"]),
    );
    expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase().split(",")).toEqual(
      expect.arrayContaining(["authorization", "content-type", "idempotency-key"]),
    );
    expect(res.headers.get("Access-Control-Max-Age")).toBe("600");
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
    expect(res.headers.get("Vary")).toContain("Origin");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("gives an allowed origin's requests Allow-Origin and the headers its script may read", async () => {
    const request = new Request("https://museum.test/v1.1/museum-hours", {
      headers: { Origin: KIOSK, Authorization: authHeader("sales") },
    });
    const res = await withOrigins(KIOSK, request);
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(KIOSK);
    expect(res.headers.get("Access-Control-Expose-Headers")).toContain("X-Request-Id");
    expect(res.headers.get("Vary")).toContain("Origin");
    // A problem response, too (the kiosk must read why).
    const refused = await withOrigins(KIOSK, new Request("https://museum.test/v1.1/museum-hours", { headers: { Origin: KIOSK } }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBe(KIOSK);
  });

  it("gives any other origin no CORS header at all, preflight or not", async () => {
    for (const origin of ["https://evil.example", `${KIOSK}.evil.example`, "http://kiosk.museum.test", "null", KIOSK.toUpperCase()]) {
      const pre = await withOrigins(KIOSK, preflight(origin));
      expect(corsHeaders(pre), origin).toEqual([]);
      expect(pre.status).not.toBe(204);
      expect(pre.headers.get("Vary")).toContain("Origin");
      const get = await withOrigins(
        KIOSK,
        new Request("https://museum.test/v1.1/museum-hours", { headers: { Origin: origin, Authorization: authHeader() } }),
      );
      expect(get.status).toBe(200);
      expect(corsHeaders(get), origin).toEqual([]);
    }
  });

  it("a request without Origin is unaffected", async () => {
    useClock("2030-01-07T15:00:00Z");
    const res = await withOrigins(KIOSK, new Request("https://museum.test/v1.1/museum-hours", { headers: { Authorization: authHeader() } }));
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
  });
});
