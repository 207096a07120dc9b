// What the fuzzers found, pinned down; and the fuzz harness's own checks.
import { describe, expect, it } from "vitest";
import { api, createEvent, dumpDatabase, eventBody, expectValidationError } from "../support/helpers";
import { checkResponse, printable, type FuzzRequest } from "./fuzz";

describe("lone surrogates (found by fuzz-events: accepted, then stored as three U+FFFD)", () => {
  it("are refused in event text fields, on create and on update, and nothing is written", async () => {
    const event = await createEvent({ dates: ["2095-05-05"] });
    const before = await dumpDatabase({ except: ["login_failures"] });
    for (const [field, value] of [
      ["name", "Pirate \uD800 Workshop"],
      ["location", "\uDC00"],
      ["eventDescription", "ends with a high surrogate \uD83D"],
    ] as const) {
      const created = await api("/v1.1/special-events", { method: "POST", json: eventBody({ [field]: value }) });
      const problem = await expectValidationError(created, field);
      expect(problem.errors![0]!.message).toMatch(/Unicode/);
      await expectValidationError(
        await api(`/v1.1/special-events/${event.eventId}`, { method: "PATCH", json: { [field]: value } }),
        field,
      );
    }
    expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
  });

  it("are refused in an hours exception's reason", async () => {
    const res = await api("/v1.1/museum-hours/exceptions/2095-12-25", { method: "PUT", json: { closed: true, reason: "Closed \uDE00" } });
    await expectValidationError(res, "reason");
  });

  it("well-formed text of any script comes back exactly as sent", async () => {
    const texts = {
      name: "👩‍👩‍👧‍👦 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 e\u0301",
      // Right-to-left scripts, without bidirectional controls (those are refused, see review-fixes.test.ts).
      location: "مرحبا בעולם",
      // Invisible characters (BOM, zero width space, ...) are refused, see invisible-characters.test.ts.
      eventDescription: "A heart ❤️, a tab\tand a line\nbreak, <script>&amp;]]>",
    };
    const event = await createEvent({ ...texts, dates: ["2095-06-06"] });
    expect(event).toMatchObject(texts);
    expect(await (await api(`/v1.1/special-events/${event.eventId}`)).json()).toMatchObject(texts);
    const reason = "Fermé 🎄 \u05D7\u05D2";
    const put = await api("/v1.1/museum-hours/exceptions/2095-12-26", { method: "PUT", json: { closed: true, reason } });
    expect(put.status).toBe(201);
    const list = await api("/v1.1/museum-hours/exceptions?startDate=2095-12-26&endDate=2095-12-26");
    expect(await list.json()).toEqual([{ date: "2095-12-26", closed: true, reason }]);
  });
});

describe("the fuzz harness catches what it should", () => {
  const request: FuzzRequest = { method: "GET", target: "/x", headers: {} };
  const secured = { "X-Content-Type-Options": "nosniff", "X-Request-Id": "r" };
  const problem = (status: number, body: unknown, type = "application/problem+json") =>
    new Response(JSON.stringify(body), { status, headers: { ...secured, "Content-Type": type } });

  it("a well-formed problem passes", async () => {
    await checkResponse(request, problem(404, { type: "about:blank", title: "Not Found", status: 404, detail: "No." }));
  });

  it.each([
    ["a 5xx", problem(500, { type: "about:blank", title: "Internal Server Error", status: 500, detail: "x" })],
    ["a 503", problem(503, { type: "about:blank", title: "Service Unavailable", status: 503, detail: "x" })],
    ["a 4xx that is not problem+json", problem(400, { type: "a", title: "b", status: 400, detail: "c" }, "application/json")],
    ["a problem whose status differs", problem(404, { type: "a", title: "b", status: 400, detail: "c" })],
    ["a problem without detail", problem(400, { type: "a", title: "b", status: 400 })],
    ["a body that is not JSON", new Response("oops", { status: 400, headers: { ...secured, "Content-Type": "application/problem+json" } })],
    ["a response without nosniff", new Response(null, { status: 204, headers: { "X-Request-Id": "r" } })],
  ])("%s fails", async (_label, res) => {
    await expect(checkResponse(request, res)).rejects.toThrow();
  });

  it("failure messages carry no raw lone surrogate (vitest's WebSocket would abort)", () => {
    expect(printable("a\uD800b\uDC00c😀")).toBe("a\\uD800b\\uDC00c😀");
  });
});
