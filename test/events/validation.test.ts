// Every refused special-events input: 400 problem+json naming the offending
// field in `errors[].path`, and nothing written to the database.
import { beforeAll, describe, expect, it } from "vitest";
import { specialEventsRouter } from "../../src/events";
import { forgetTicketLookups } from "../../src/ticket-image";
import { ticketsFollowing } from "../../src/tickets/follow";
import {
  api,
  createEvent,
  dumpDatabase,
  eventBody,
  expectProblem,
  expectValidationError,
  type EventJson,
} from "../support/helpers";

const BASE = "/v1.1/special-events";

const days = (count: number, year = 2092) =>
  Array.from({ length: count }, (_, i) => new Date(Date.UTC(year, 0, 1 + i)).toISOString().slice(0, 10));

/** Sends the request and asserts a 400 naming exactly `paths`, with no write. */
async function expectRefused(send: () => Promise<Response>, ...paths: string[]) {
  const before = await dumpDatabase();
  const problem = await expectValidationError(await send(), ...paths);
  for (const error of problem.errors!) expect(error.message).toEqual(expect.any(String));
  expect(await dumpDatabase()).toBe(before);
  return problem;
}

const post = (json: unknown) => () => api(BASE, { method: "POST", json });
const postRaw = (body: string) => () =>
  api(BASE, { method: "POST", body, headers: { "Content-Type": "application/json" } });

// [case, body overrides (undefined removes a field), paths]
const CREATE_CASES: [string, Record<string, unknown>, string[]][] = [
  ["name missing", { name: undefined }, ["name"]],
  ["location missing", { location: undefined }, ["location"]],
  ["eventDescription missing", { eventDescription: undefined }, ["eventDescription"]],
  ["dates missing", { dates: undefined }, ["dates"]],
  ["price missing", { price: undefined }, ["price"]],
  ["name a number", { name: 5 }, ["name"]],
  ["name null", { name: null }, ["name"]],
  ["location a boolean", { location: true }, ["location"]],
  ["eventDescription an array", { eventDescription: ["x"] }, ["eventDescription"]],
  ["dates a string", { dates: "2090-01-01" }, ["dates"]],
  ["dates null", { dates: null }, ["dates"]],
  ["a date as a number", { dates: ["2090-01-01", 20900102] }, ["dates[1]"]],
  ["a date null", { dates: [null] }, ["dates[0]"]],
  ["price a string", { price: "10" }, ["price"]],
  ["price null", { price: null }, ["price"]],
  ["price an object", { price: { amount: 10 } }, ["price"]],
  ["eventId sent", { eventId: "3be6453c-03eb-4357-ae5a-984a0e574a54" }, ["eventId"]],
  ["an unknown field", { colour: "red" }, ["colour"]],
  ["2023-02-30", { dates: ["2023-02-30"] }, ["dates[0]"]],
  ["2023-02-29 (not a leap year)", { dates: ["2090-01-01", "2023-02-29"] }, ["dates[1]"]],
  ["month 13", { dates: ["2090-13-01"] }, ["dates[0]"]],
  ["day 00", { dates: ["2090-01-00"] }, ["dates[0]"]],
  ["April 31", { dates: ["2090-04-31"] }, ["dates[0]"]],
  ["one-digit month", { dates: ["2090-1-01"] }, ["dates[0]"]],
  ["a date-time", { dates: ["2090-01-01T00:00:00Z"] }, ["dates[0]"]],
  ["a padded date", { dates: [" 2090-01-01"] }, ["dates[0]"]],
  ["a five-digit year", { dates: ["12090-01-01"] }, ["dates[0]"]],
  ["an empty date", { dates: [""] }, ["dates[0]"]],
  ["a duplicate date", { dates: ["2090-01-01", "2090-01-02", "2090-01-01"] }, ["dates[2]"]],
  ["a date before 2000-01-01", { dates: ["2090-01-01", "1999-12-31"] }, ["dates[1]"]],
  ["the year 0050", { dates: ["0050-01-01"] }, ["dates[0]"]],
  ["a date after 2099-12-31", { dates: ["2100-01-01", "2090-01-01"] }, ["dates[0]"]],
  ["9999-12-31", { dates: ["9999-12-31"] }, ["dates[0]"]],
  ["0 dates", { dates: [] }, ["dates"]],
  ["367 dates", { dates: days(367) }, ["dates"]],
  ["negative price", { price: -1 }, ["price"]],
  ["price -0.01", { price: -0.01 }, ["price"]],
  ["price 1.005 (three decimals)", { price: 1.005 }, ["price"]],
  ["price 0.001", { price: 0.001 }, ["price"]],
  ["price 1e-9", { price: 1e-9 }, ["price"]],
  ["price 19.999", { price: 19.999 }, ["price"]],
  ["price 1000000.01", { price: 1_000_000.01 }, ["price"]],
  ["price 1e21", { price: 1e21 }, ["price"]],
  ["name of 201 characters", { name: "n".repeat(201) }, ["name"]],
  ["name of 201 emoji", { name: "\u{1F3A8}".repeat(201) }, ["name"]],
  ["location of 201 characters", { location: "l".repeat(201) }, ["location"]],
  ["eventDescription of 5001 characters", { eventDescription: "d".repeat(5001) }, ["eventDescription"]],
  ["empty name", { name: "" }, ["name"]],
  ["blank name", { name: "   " }, ["name"]],
  ["blank location", { location: "\t\n " }, ["location"]],
  ["empty eventDescription", { eventDescription: "" }, ["eventDescription"]],
  ["several bad fields", { name: "", price: -5, dates: ["2090-02-30"], extra: 1 }, ["name", "price", "dates[0]", "extra"]],
];

describe("POST /special-events refuses", () => {
  it.each(CREATE_CASES)("%s", async (_case, overrides, paths) => {
    await expectRefused(post(eventBody(overrides)), ...paths);
  });

  it("a date out of range, saying the range", async () => {
    const problem = await expectRefused(post(eventBody({ dates: ["2090-01-01", "1999-12-31", "2100-01-01"] })), "dates[1]", "dates[2]");
    expect(problem.errors!.map((error) => error.message)).toEqual(["Must be from 2000-01-01 to 2099-12-31.", "Must be from 2000-01-01 to 2099-12-31."]);
  });

  it("an empty object, naming every required field", async () => {
    await expectRefused(post({}), "name", "location", "eventDescription", "dates", "price");
  });

  it.each([
    ["an array", []],
    ["null", null],
    ["a string", "event"],
    ["a number", 42],
  ])("a body that is %s", async (_case, body) => {
    await expectRefused(post(body), "(body)");
  });

  it("an infinite price (1e400 in the JSON text)", async () => {
    const json = JSON.stringify(eventBody({ price: 1 })).replace(/"price":1\b/, '"price":1e400');
    expect(json).toContain("1e400");
    await expectRefused(postRaw(json), "price");
  });

  it.each([
    ["truncated", '{"name": "x", '],
    ["a trailing comma", '{"name": "x",}'],
    ["single quotes", "{'name': 'x'}"],
    ["empty", ""],
    ["two documents", "{} {}"],
  ])("malformed JSON (%s) as a malformed-json problem", async (_case, body) => {
    const before = await dumpDatabase();
    const problem = await expectProblem(await postRaw(body)(), 400);
    expect(problem.type).toBe("/problems/malformed-json");
    expect(problem.errors).toEqual([{ path: "(body)", message: expect.any(String) }]);
    expect(await dumpDatabase()).toBe(before);
  });
});

describe("POST /special-events accepts the limits themselves", () => {
  it.each([
    ["a name of 200 characters", { name: "n".repeat(200) }],
    ["a name of 200 emoji (characters are code points)", { name: "\u{1F3A8}".repeat(200) }],
    ["a location of 200 characters", { location: "l".repeat(200) }],
    ["a description of 5000 characters", { eventDescription: "d".repeat(5000) }],
    ["a one-character name", { name: "X" }],
    ["366 dates", { dates: days(366, 2096) }],
    ["the first and the last date allowed", { dates: ["2000-01-01", "2099-12-31"] }],
    ["price 0", { price: 0 }],
    ["price 1000000", { price: 1_000_000 }],
    ["price 0.01", { price: 0.01 }],
    ["price 999999.99", { price: 999_999.99 }],
  ])("%s", async (_case, overrides) => {
    const body = eventBody(overrides);
    const res = await api(BASE, { method: "POST", json: body });
    expect(res.status).toBe(201);
    const created = (await res.json()) as EventJson;
    expect(created).toEqual({ ...body, eventId: created.eventId });
  });
});

describe("PATCH /special-events/{eventId} refuses", () => {
  let event: EventJson;
  beforeAll(async () => {
    event = await createEvent({ dates: ["2093-01-01"] });
  });
  const patch = (json: unknown) => () => api(`${BASE}/${event.eventId}`, { method: "PATCH", json });

  it.each([
    ["an empty body {}", {}, ["(body)"]],
    ["name null", { name: null }, ["name"]],
    ["location null", { location: null }, ["location"]],
    ["eventDescription null", { eventDescription: null }, ["eventDescription"]],
    ["dates null", { dates: null }, ["dates"]],
    ["price null", { price: null }, ["price"]],
    ["null next to a good field", { location: "Hall", price: null }, ["price"]],
    ["an unknown field", { colour: "red" }, ["colour"]],
    ["an unknown field next to a good one", { name: "Fine", colour: "red" }, ["colour"]],
    ["eventId", { eventId: crypto.randomUUID() }, ["eventId"]],
    ["empty name", { name: "" }, ["name"]],
    ["blank name", { name: "   " }, ["name"]],
    ["201-character location", { location: "l".repeat(201) }, ["location"]],
    ["5001-character description", { eventDescription: "d".repeat(5001) }, ["eventDescription"]],
    ["0 dates", { dates: [] }, ["dates"]],
    ["367 dates", { dates: days(367) }, ["dates"]],
    ["2023-02-30", { dates: ["2093-01-02", "2023-02-30"] }, ["dates[1]"]],
    ["a duplicate date", { dates: ["2093-01-02", "2093-01-02"] }, ["dates[1]"]],
    ["a date after 2099-12-31", { dates: ["2093-01-02", "2100-01-01"] }, ["dates[1]"]],
    ["a date before 2000-01-01", { dates: ["1999-12-31"] }, ["dates[0]"]],
    ["price 1.005", { price: 1.005 }, ["price"]],
    ["price -1", { price: -1 }, ["price"]],
    ["price 1000000.01", { price: 1_000_000.01 }, ["price"]],
    ["price as a string", { price: "1" }, ["price"]],
  ] as [string, unknown, string[]][])("%s", async (_case, body, paths) => {
    await expectRefused(patch(body), ...paths);
    expect(await (await api(`${BASE}/${event.eventId}`)).json()).toEqual(event);
  });

  it.each([
    ["an array", [{ name: "x" }]],
    ["null", null],
  ])("a body that is %s", async (_case, body) => {
    await expectRefused(patch(body), "(body)");
  });

  it("malformed JSON", async () => {
    const before = await dumpDatabase();
    const res = await api(`${BASE}/${event.eventId}`, {
      method: "PATCH",
      body: '{"name":',
      headers: { "Content-Type": "application/json" },
    });
    const problem = await expectProblem(res, 400);
    expect(problem.type).toBe("/problems/malformed-json");
    expect(await dumpDatabase()).toBe(before);
  });
});

describe("a malformed eventId in the path is 400 (path.eventId)", () => {
  const BAD_IDS = [
    "not-a-uuid",
    "123",
    "3be6453c-03eb-4357-ae5a-984a0e574a5", // one digit short
    "3be6453c-03eb-4357-ae5a-984a0e574a541", // one digit long
    "3be6453c03eb4357ae5a984a0e574a54", // no dashes
    "zzzzzzzz-zzzz-4zzz-8zzz-zzzzzzzzzzzz",
    "%7B3be6453c-03eb-4357-ae5a-984a0e574a54%7D", // {braces}
    "%203be6453c-03eb-4357-ae5a-984a0e574a54", // leading space
    "3be6453c-03eb-0357-ae5a-984a0e574a54", // version 0
    "3be6453c-03eb-9357-ae5a-984a0e574a54", // version 9
    "3be6453c-03eb-4357-ce5a-984a0e574a54", // variant c (Microsoft's)
    "3be6453c-03eb-4357-7e5a-984a0e574a54", // variant 7 (NCS)
    "00000000-0000-0000-0000-000000000001", // neither nil nor a version
  ];

  it.each(BAD_IDS)("GET %s", async (id) => {
    await expectRefused(() => api(`${BASE}/${id}`), "path.eventId");
  });

  it.each(BAD_IDS)("PATCH %s", async (id) => {
    await expectRefused(() => api(`${BASE}/${id}`, { method: "PATCH", json: { name: "x" } }), "path.eventId");
  });

  it.each(BAD_IDS)("DELETE %s", async (id) => {
    await expectRefused(() => api(`${BASE}/${id}`, { method: "DELETE" }), "path.eventId");
  });
});

describe("GET /special-events refuses bad query values", () => {
  it.each([
    ["page=0", ["query.page"]],
    ["page=-1", ["query.page"]],
    ["page=1.5", ["query.page"]],
    ["page=abc", ["query.page"]],
    ["page=", ["query.page"]],
    ["page=1000001", ["query.page"]],
    ["page=99999999999", ["query.page"]],
    ["limit=0", ["query.limit"]],
    ["limit=31", ["query.limit"]],
    ["limit=abc", ["query.limit"]],
    ["limit=1e1", ["query.limit"]],
    ["limit=0x10", ["query.limit"]],
    ["limit=%205", ["query.limit"]],
    ["limit=10.0", ["query.limit"]],
    ["limit=1&limit=2", ["query.limit"]],
    ["page=0&limit=31", ["query.page", "query.limit"]],
    ["startDate=2023-02-30", ["query.startDate"]],
    ["startDate=2030-1-1", ["query.startDate"]],
    ["endDate=tomorrow", ["query.endDate"]],
    ["startDate=2030-01-10&endDate=2030-01-09", ["query.endDate"]],
  ])("%s", async (query, paths) => {
    await expectRefused(() => api(`${BASE}?${query}`), ...paths);
  });

  it.each(["page=1&limit=1", "page=1000000&limit=30", "limit=030", "startDate=2030-01-01&endDate=2030-01-01"])(
    "but accepts %s",
    async (query) => {
      expect((await api(`${BASE}?${query}`)).status).toBe(200);
    },
  );
});

describe("the OpenAPI document announces the limits the validator enforces", () => {
  it("names, locations, descriptions, dates and prices", async () => {
    // The events router's own document (the same schemas that validate), so
    // that this file tests the events resource alone.
    const doc = specialEventsRouter(ticketsFollowing(forgetTicketLookups).events).getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: "events", version: "test" },
    }) as unknown as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>>; additionalProperties?: boolean; required?: string[] }> };
    };
    const create = doc.components.schemas.CreateSpecialEventRequest!;
    expect(create.additionalProperties).toBe(false);
    expect([...create.required!].sort()).toEqual(["dates", "eventDescription", "location", "name", "price"]);
    expect(create.properties.name).toMatchObject({ type: "string", minLength: 1, maxLength: 200 });
    expect(create.properties.location).toMatchObject({ type: "string", minLength: 1, maxLength: 200 });
    expect(create.properties.eventDescription).toMatchObject({ type: "string", minLength: 1, maxLength: 5000 });
    expect(create.properties.dates).toMatchObject({ type: "array", minItems: 1, maxItems: 366, items: { format: "date", pattern: "^20[0-9]{2}-" } });
    expect(create.properties.price).toMatchObject({ type: "number", minimum: 0, maximum: 1_000_000 });
    expect(doc.components.schemas.UpdateSpecialEventRequest!.additionalProperties).toBe(false);
  });
});
