// /v1.1/webhooks: admin only, the secret shown once and sealed at rest, the
// 20-subscription limit, input rules, and the deliveries listing.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, expectValidationError } from "../support/helpers";
import { subscribe, subscriberUrl, unsubscribeAll } from "./helpers";

afterEach(unsubscribeAll);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("POST /v1.1/webhooks", () => {
  it("201 with Location and the secret (whsec_ + base64 of 32 bytes)", async () => {
    const url = subscriberUrl(202);
    const res = await api("/v1.1/webhooks", { method: "POST", json: { url, description: "Lobby signage" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toEqual({ webhookId: expect.stringMatching(UUID), url, description: "Lobby signage", createdAt: expect.any(String), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(atob(body.secret!.slice(6))).toHaveLength(32);
    expect(res.headers.get("Location")).toBe(`/v1.1/webhooks/${body.webhookId}`);
  });

  it("never returns the secret again, and never stores it in plain text", async () => {
    const created = await subscribe(subscriberUrl(202));
    const one = await (await api(`/v1.1/webhooks/${created.webhookId}`)).json();
    expect(one).toEqual({ webhookId: created.webhookId, url: created.url, createdAt: created.createdAt });
    const list = (await (await api("/v1.1/webhooks")).json()) as unknown[];
    expect(list).toEqual([one]);

    const secretBase64 = created.secret.slice("whsec_".length);
    const dump = await dumpDatabase();
    expect(dump).not.toContain(secretBase64);
    expect(dump).not.toContain(created.secret);
    // Nor as hex of its bytes.
    const hex = [...atob(secretBase64)].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
    expect(dump.toLowerCase()).not.toContain(hex);
    const row = await env.DB.prepare("SELECT secret_sealed, secret_key_id FROM webhook_subscriptions WHERE webhook_id = ?1")
      .bind(created.webhookId)
      .first<{ secret_sealed: string; secret_key_id: string }>();
    expect(row!.secret_key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(row!.secret_sealed).toMatch(/^[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/);
  });

  it("two subscriptions get different secrets", async () => {
    const a = await subscribe(subscriberUrl(202));
    const b = await subscribe(subscriberUrl(202));
    expect(a.secret).not.toBe(b.secret);
  });

  it("403 for sales, 401 without credentials; nothing is written", async () => {
    const before = await dumpDatabase({ except: ["login_failures"] });
    await expectProblem(await api("/v1.1/webhooks", { method: "POST", as: "sales", json: { url: subscriberUrl(202) } }), 403);
    await expectProblem(await api("/v1.1/webhooks", { method: "POST", as: null, json: { url: subscriberUrl(202) } }), 401);
    for (const path of ["/v1.1/webhooks", `/v1.1/webhooks/${crypto.randomUUID()}`, `/v1.1/webhooks/${crypto.randomUUID()}/deliveries`]) {
      await expectProblem(await api(path, { as: "sales" }), 403);
    }
    await expectProblem(await api(`/v1.1/webhooks/${crypto.randomUUID()}`, { method: "DELETE", as: "sales" }), 403);
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
  });

  it.each([
    [{}, ["url"]],
    [{ url: 42 }, ["url"]],
    [{ url: subscriberUrl(202), webhookId: crypto.randomUUID() }, ["webhookId"]],
    [{ url: subscriberUrl(202), secret: "whsec_mine" }, ["secret"]],
    [{ url: subscriberUrl(202), description: "" }, ["description"]],
    [{ url: subscriberUrl(202), description: "   " }, ["description"]],
    [{ url: subscriberUrl(202), description: "x".repeat(201) }, ["description"]],
    [{ url: subscriberUrl(202), description: "two\nlines" }, ["description"]],
    [{ url: subscriberUrl(202), description: "tab\there" }, ["description"]],
    [{ url: subscriberUrl(202), description: "nul\u0000" }, ["description"]],
    [{ url: subscriberUrl(202), description: "c1\u0085" }, ["description"]],
    [{ url: subscriberUrl(202), description: "bidi \u202Egnp.exe" }, ["description"]],
    [{ url: subscriberUrl(202), description: "isolate \u2066x\u2069" }, ["description"]],
    [{ url: subscriberUrl(202), description: "line\u2028sep" }, ["description"]],
    [{ url: subscriberUrl(202), description: "lone \uD800" }, ["description"]],
    [{ url: subscriberUrl(202), description: null }, ["description"]],
  ])("400 for %j", async (json, paths) => {
    await expectValidationError(await api("/v1.1/webhooks", { method: "POST", json }), ...paths);
  });

  it("accepts a description of 200 characters, emoji counted as one", async () => {
    const description = "🎨".repeat(200);
    const created = await subscribe(subscriberUrl(202), description);
    expect(created.description).toBe(description);
  });

  it("409 for a 21st subscription; a deleted one frees its place", async () => {
    const hooks = [];
    for (let i = 0; i < 20; i++) hooks.push(await subscribe(subscriberUrl(202)));
    const refused = await expectProblem(await api("/v1.1/webhooks", { method: "POST", json: { url: subscriberUrl(202) } }), 409);
    expect(refused.detail).toMatch(/20/);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM webhook_subscriptions WHERE deleted_at IS NULL").first("n")).toBe(20);
    expect((await api(`/v1.1/webhooks/${hooks[0]!.webhookId}`, { method: "DELETE" })).status).toBe(204);
    expect((await api("/v1.1/webhooks", { method: "POST", json: { url: subscriberUrl(202) } })).status).toBe(201);
  });
});

describe("GET, DELETE /v1.1/webhooks/{webhookId}", () => {
  it("404 for an unknown or deleted subscription, 400 for a malformed id", async () => {
    const created = await subscribe(subscriberUrl(202));
    expect((await api(`/v1.1/webhooks/${created.webhookId}`, { method: "DELETE" })).status).toBe(204);
    for (const path of [`/v1.1/webhooks/${created.webhookId}`, `/v1.1/webhooks/${created.webhookId}/deliveries`, `/v1.1/webhooks/${crypto.randomUUID()}`]) {
      await expectProblem(await api(path), 404);
    }
    await expectProblem(await api(`/v1.1/webhooks/${created.webhookId}`, { method: "DELETE" }), 404);
    await expectValidationError(await api("/v1.1/webhooks/not-a-uuid"), "path.webhookId");
    expect(await (await api("/v1.1/webhooks")).json()).toEqual([]);
  });

  it("lists subscriptions oldest first", async () => {
    const a = await subscribe(subscriberUrl(202), "first");
    const b = await subscribe(subscriberUrl(202));
    const list = (await (await api("/v1.1/webhooks")).json()) as { webhookId: string }[];
    expect(list.map((w) => w.webhookId)).toEqual([a.webhookId, b.webhookId]);
  });

  it("GET deliveries: [] before any event change", async () => {
    const created = await subscribe(subscriberUrl(202));
    expect(await (await api(`/v1.1/webhooks/${created.webhookId}/deliveries`)).json()).toEqual([]);
  });
});
