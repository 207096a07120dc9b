// The contract's "Errors" section: problem+json for 404, 405 (+ Allow), 413,
// 415 and malformed JSON, X-Request-Id on every response, and a 500 that
// reveals nothing of the failure.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, createEvent, dumpDatabase, eventBody, expectProblem, streamOf, type EventJson } from "../support/helpers";

const BASE = "/v1.1/special-events";
const MAX_BODY_BYTES = 16 * 1024;
const encoder = new TextEncoder();

/** A valid create body whose JSON is exactly `bytes` long in UTF-8. */
function createBodyOfExactly(bytes: number): string {
  // 366 dates and three-byte characters leave room for 16 KiB within the
  // field limits (a description of at most 5000 characters).
  const dates = Array.from({ length: 366 }, (_, i) => new Date(Date.UTC(2094, 0, 1 + i)).toISOString().slice(0, 10));
  const body = { name: "\u20ac".repeat(200), location: "\u20ac".repeat(200), eventDescription: "", dates, price: 1 };
  const rest = encoder.encode(JSON.stringify(body)).length;
  const descriptionBytes = bytes - rest;
  const euros = Math.floor(descriptionBytes / 3);
  body.eventDescription = "\u20ac".repeat(euros) + "d".repeat(descriptionBytes - 3 * euros);
  const json = JSON.stringify(body);
  expect(encoder.encode(json).length).toBe(bytes);
  expect([...body.eventDescription].length).toBeLessThanOrEqual(5000);
  return json;
}

/** The same bytes in small chunks: a body without Content-Length. */
const chunked = (text: string) => streamOf(text, 1000);

function allowed(res: Response): string[] {
  return (res.headers.get("Allow") ?? "").split(",").map((m) => m.trim()).filter(Boolean).sort();
}

describe("404", () => {
  it("for an unknown path, outside and inside /v1.1", async () => {
    for (const [path, as] of [["/no-such-page", null], ["/v1.1/no-such-operation", "admin"], ["/v1.1", "admin"], ["/v1.1/special-events/a/b", "admin"]] as const) {
      const problem = await expectProblem(await api(path, { as }), 404);
      expect(problem.type).toBe("about:blank");
      expect(problem.title).toBe("Not Found");
    }
  });

  it("for an unknown path even when the body is not JSON (the 404 is the real mistake)", async () => {
    await expectProblem(await api("/v1.1/no-such-operation", { method: "POST", body: "x", headers: { "Content-Type": "text/plain" } }), 404);
  });
});

describe("405 with Allow for a known path and a wrong method", () => {
  const ID = "3be6453c-03eb-4357-ae5a-984a0e574a54";
  it.each([
    ["PUT", BASE, ["GET", "HEAD", "POST"]],
    ["DELETE", BASE, ["GET", "HEAD", "POST"]],
    ["PATCH", BASE, ["GET", "HEAD", "POST"]],
    ["POST", `${BASE}/${ID}`, ["DELETE", "GET", "HEAD", "PATCH"]],
    ["PUT", `${BASE}/${ID}`, ["DELETE", "GET", "HEAD", "PATCH"]],
    ["POST", "/healthz", ["GET", "HEAD"]],
    ["DELETE", "/", ["GET", "HEAD"]],
  ])("%s %s", async (method, path, allow) => {
    const before = await dumpDatabase();
    const res = await api(path, { method, json: eventBody() });
    const problem = await expectProblem(res, 405);
    expect(allowed(res)).toEqual(allow);
    expect(problem.detail).toContain(method);
    expect(await dumpDatabase()).toBe(before);
  });

  it("whatever the body's media type (405, not 415)", async () => {
    const res = await api(BASE, { method: "PUT", body: "hello", headers: { "Content-Type": "text/plain" } });
    await expectProblem(res, 405);
    expect(allowed(res)).toEqual(["GET", "HEAD", "POST"]);
  });
});

describe("413 for a body over 16 KiB", () => {
  it("refuses 16 KiB + 1 byte sent with Content-Length, on POST and PATCH", async () => {
    const event = await createEvent();
    const json = createBodyOfExactly(MAX_BODY_BYTES + 1);
    const before = await dumpDatabase();
    for (const [method, path] of [["POST", BASE], ["PATCH", `${BASE}/${event.eventId}`]] as const) {
      const problem = await expectProblem(
        await api(path, { method, body: json, headers: { "Content-Type": "application/json" } }),
        413,
      );
      expect(problem.title).toBe("Content Too Large");
    }
    expect(await dumpDatabase()).toBe(before);
  });

  it("refuses 16 KiB + 1 byte streamed without Content-Length", async () => {
    expect(new Request("https://x.test", { method: "POST", body: chunked("{}") }).headers.has("Content-Length")).toBe(false);
    const event = await createEvent();
    const json = createBodyOfExactly(MAX_BODY_BYTES + 1);
    const before = await dumpDatabase();
    for (const [method, path] of [["POST", BASE], ["PATCH", `${BASE}/${event.eventId}`]] as const) {
      await expectProblem(
        await api(path, { method, body: chunked(json), headers: { "Content-Type": "application/json" } }),
        413,
      );
    }
    expect(await dumpDatabase()).toBe(before);
  });

  it("accepts exactly 16 KiB, with Content-Length and streamed", async () => {
    const json = createBodyOfExactly(MAX_BODY_BYTES);
    const expected = JSON.parse(json) as Omit<EventJson, "eventId">;
    for (const body of [json, chunked(json)]) {
      const res = await api(BASE, { method: "POST", body, headers: { "Content-Type": "application/json" } });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ ...expected, eventId: expect.any(String) });
    }
  });
});

describe("415 for a body that is not application/json", () => {
  it.each([
    ["text/plain", "text/plain", JSON.stringify(eventBody())],
    ["text/plain;charset=UTF-8", "text/plain;charset=UTF-8", JSON.stringify(eventBody())],
    ["a form", "application/x-www-form-urlencoded", "name=x&price=1"],
    ["multipart", "multipart/form-data; boundary=x", "--x--"],
    ["application/jsonp", "application/jsonp", JSON.stringify(eventBody())],
    ["a +json type", "application/merge-patch+json", JSON.stringify(eventBody())],
    ["no Content-Type at all", undefined, JSON.stringify(eventBody())],
    // JSON between systems is UTF-8 (RFC 8259, section 8.1): a body declared
    // in another charset is refused even when its bytes happen to be UTF-8.
    ["charset utf-16", "application/json; charset=utf-16", JSON.stringify(eventBody())],
    ["charset UTF-16LE", "application/json;charset=UTF-16LE", JSON.stringify(eventBody())],
    ["charset iso-8859-1", "application/json; charset=iso-8859-1", JSON.stringify(eventBody())],
    ["charset quoted utf-16", 'application/json; charset="utf-16"', JSON.stringify(eventBody())],
    ["charset utf8 (not the registered name)", "application/json; charset=utf8", JSON.stringify(eventBody())],
    ["charset empty", "application/json; charset=", JSON.stringify(eventBody())],
    ["a second charset", "application/json; charset=utf-8; charset=utf-16", JSON.stringify(eventBody())],
  ])("%s", async (_case, contentType, text) => {
    const event = await createEvent();
    const before = await dumpDatabase();
    for (const [method, path] of [["POST", BASE], ["PATCH", `${BASE}/${event.eventId}`]] as const) {
      // Bytes, not a string: a string body would get text/plain by default.
      const res = await api(path, { method, body: encoder.encode(text), headers: contentType ? { "Content-Type": contentType } : {} });
      const problem = await expectProblem(res, 415);
      expect(problem.title).toBe("Unsupported Media Type");
    }
    expect(await dumpDatabase()).toBe(before);
  });

  it("names the accepted media type", async () => {
    const res = await api(BASE, { method: "POST", body: encoder.encode(JSON.stringify(eventBody())), headers: { "Content-Type": "application/json; charset=utf-16" } });
    const problem = await expectProblem(res, 415);
    expect(problem.detail).toContain("application/json");
    expect(problem.detail).toContain("utf-8");
  });

  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    'application/json; charset="utf-8"',
    "Application/JSON; Charset=Utf-8",
  ])("accepts %s", async (contentType) => {
    const res = await api(BASE, { method: "POST", body: encoder.encode(JSON.stringify(eventBody())), headers: { "Content-Type": contentType } });
    expect(res.status).toBe(201);
  });

  it("does not apply to bodiless operations (GET, DELETE)", async () => {
    const event = await createEvent();
    expect((await api(`${BASE}/${event.eventId}`, { headers: { "Content-Type": "text/plain" } })).status).toBe(200);
    expect((await api(`${BASE}/${event.eventId}`, { method: "DELETE", headers: { "Content-Type": "text/plain" } })).status).toBe(204);
  });
});

describe("malformed JSON", () => {
  it("is a 400 problem of its own type, and writes nothing", async () => {
    const before = await dumpDatabase();
    const res = await api(BASE, { method: "POST", body: '{"name": "Pirates", "price": 1,', headers: { "Content-Type": "application/json" } });
    const problem = await expectProblem(res, 400);
    expect(problem).toMatchObject({ type: "/problems/malformed-json", title: "Malformed JSON", errors: [{ path: "(body)" }] });
    expect(await dumpDatabase()).toBe(before);
  });
});

describe("X-Request-Id", () => {
  it("is on every response, distinct per request, and equal to a problem's requestId", async () => {
    const event = await createEvent();
    const doomed = await createEvent();
    const requests: [number, string, Parameters<typeof api>[1]][] = [
      [200, "/", { as: null }],
      [200, "/healthz", { as: null }],
      [200, BASE, {}],
      [200, `${BASE}/${event.eventId}`, {}],
      [201, BASE, { method: "POST", json: eventBody() }],
      [200, `${BASE}/${event.eventId}`, { method: "PATCH", json: { price: 2 } }],
      [204, `${BASE}/${doomed.eventId}`, { method: "DELETE" }],
      [400, `${BASE}?limit=31`, {}],
      [400, BASE, { method: "POST", body: "{", headers: { "Content-Type": "application/json" } }],
      [401, BASE, { as: null }],
      [403, BASE, { method: "POST", as: "sales", json: eventBody() }],
      [404, `${BASE}/${crypto.randomUUID()}`, {}],
      [404, "/nowhere", { as: null }],
      [405, BASE, { method: "PUT", json: {} }],
      [413, BASE, { method: "POST", body: "x".repeat(MAX_BODY_BYTES + 1), headers: { "Content-Type": "application/json" } }],
      [415, BASE, { method: "POST", body: "x", headers: { "Content-Type": "text/plain" } }],
    ];
    const ids = new Set<string>();
    for (const [status, path, request] of requests) {
      const res = await api(path, request);
      expect(res.status, `${request?.method ?? "GET"} ${path}`).toBe(status);
      const id = res.headers.get("X-Request-Id");
      expect(id, `${request?.method ?? "GET"} ${path}`).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      if (status >= 400) expect(((await res.json()) as { requestId: string }).requestId).toBe(id);
      ids.add(id!);
    }
    expect(ids.size).toBe(requests.length);
  });
});

describe("500", () => {
  it("says only that the request failed, with its request id: no SQL, table name or stack", async () => {
    // A real failure: a trigger makes the insert of the event fail for a moment.
    // (A missing table is a 503 schema-behind: test/health/schema.test.ts.)
    await env.DB.exec(
      "CREATE TRIGGER special_events_refused BEFORE INSERT ON special_events BEGIN SELECT RAISE(ABORT, 'SQL refused the insert into special_events'); END",
    );
    let res: Response;
    let text: string;
    try {
      res = await api(BASE, { method: "POST", json: eventBody() });
      text = await res.text();
    } finally {
      await env.DB.exec("DROP TRIGGER special_events_refused");
    }
    expect(res.status).toBe(500);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    const problem = JSON.parse(text) as Record<string, unknown>;
    const requestId = res.headers.get("X-Request-Id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(problem).sort()).toEqual(["detail", "requestId", "status", "title", "type"]);
    expect(problem).toMatchObject({ type: "about:blank", title: "Internal Server Error", status: 500, requestId });
    expect(problem.detail).toContain(requestId!);
    for (const secret of ["special_event", "SELECT", "SQL", "refused", "D1", "Error:", " at ", ".ts", "stack"]) {
      expect(text).not.toContain(secret);
    }
    // The database is back: the same request works again.
    expect((await api(BASE, { method: "POST", json: eventBody() })).status).toBe(201);
  });
});
