// Public service endpoints (/healthz, /) and D1 session bookmarks.
import { describe, expect, it } from "vitest";
import { api, dumpDatabase, eventBody, expectValidationError, type EventJson } from "../support/helpers";

const BOOKMARK = "x-d1-bookmark";

describe("GET /healthz", () => {
  it("is public, says the database answers and its schema is current, and is not cached", async () => {
    const res = await api("/healthz", { as: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(await res.json()).toMatchObject({ status: "ok", checks: { database: { status: "ok" }, schema: { status: "ok", pending: [] } } });
  });

  it("ignores credentials, even wrong ones", async () => {
    const res = await api("/healthz", { as: null, headers: { Authorization: "Basic !!!" } });
    expect(res.status).toBe(200);
  });

  it("answers HEAD without a body", async () => {
    const res = await api("/healthz", { method: "HEAD", as: null });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });
});

describe("GET /", () => {
  it("is a public JSON index that links the API, its document, the docs, the health check and the OCTO API", async () => {
    const res = await api("/", { as: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      name: "Museum API",
      version: "1.1.1",
      api: "/v1.1",
      openapi: "/v1.1/openapi.json",
      docs: "/docs",
      health: "/healthz",
      octo: "/octo",
    });
  });

  it("links a health check that answers", async () => {
    const index = (await (await api("/", { as: null })).json()) as { health: string };
    expect((await api(index.health, { as: null })).status).toBe(200);
  });

  it("links the public OpenAPI 3.1 document, which describes the special-events operations", async () => {
    const index = (await (await api("/", { as: null })).json()) as { openapi: string };
    const res = await api(index.openapi, { as: null });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.1.1");
    expect(Object.keys(doc.paths["/special-events"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/special-events/{eventId}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
  });
});

describe("D1 session bookmarks", () => {
  it("returns a bookmark on responses that used the database", async () => {
    for (const path of ["/healthz", "/v1.1/special-events"]) {
      const res = await api(path);
      expect(res.headers.get(BOOKMARK), path).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/);
    }
  });

  it("continues from the bookmark of a write, so the client reads its own write", async () => {
    const created = await api("/v1.1/special-events", { method: "POST", json: eventBody() });
    expect(created.status).toBe(201);
    const bookmark = created.headers.get(BOOKMARK);
    expect(bookmark).toBeTruthy();
    const { eventId } = (await created.json()) as EventJson;
    const read = await api(`/v1.1/special-events/${eventId}`, { headers: { [BOOKMARK]: bookmark! } });
    expect(read.status).toBe(200);
    // The session never goes back behind the bookmark it started from.
    expect(read.headers.get(BOOKMARK)! >= bookmark!).toBe(true);
  });

  it.each([
    ["spaces and punctuation", "not a bookmark!"],
    ["SQL", "x'; DROP TABLE accounts; --"],
    ["over 128 characters", "a".repeat(129)],
  ])("refuses a garbage bookmark (%s) with 400 header.x-d1-bookmark, writing nothing", async (_case, bookmark) => {
    const before = await dumpDatabase();
    await expectValidationError(await api("/v1.1/special-events", { headers: { [BOOKMARK]: bookmark } }), `header.${BOOKMARK}`);
    await expectValidationError(
      await api("/v1.1/special-events", { method: "POST", json: eventBody(), headers: { [BOOKMARK]: bookmark } }),
      `header.${BOOKMARK}`,
    );
    expect(await dumpDatabase()).toBe(before);
  });
});
