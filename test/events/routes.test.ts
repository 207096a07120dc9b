// The special-events operations through the real Worker (routing, auth,
// validation, handlers, D1), as the contract's "Special events" section says.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CreateSpecialEventRequest } from "../../src/events/schemas";
import { createEvent as insertEvent } from "../../src/events/service";
import {
  api,
  createEvent,
  dumpDatabase,
  eventBody,
  expectProblem,
  expectValidationError,
  listAll,
  parseLink,
  uniqueName,
  yearAllocator,
  type EventJson,
} from "../support/helpers";

// Event dates run from 2000 to 2099: a year of its own for each test.
const nextYear = yearAllocator(2040);
const BASE = "/v1.1/special-events";

/** The ids of `events` in list order, keeping only the given ones. */
function idsAmong(events: EventJson[], mine: EventJson[]): string[] {
  const wanted = new Set(mine.map((e) => e.eventId));
  return events.map((e) => e.eventId).filter((id) => wanted.has(id));
}

async function list(query: string, as: "admin" | "sales" = "admin") {
  const res = await api(`${BASE}?${query}`, { as });
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  return { res, events: (await res.json()) as EventJson[], links: parseLink(res.headers.get("Link")) };
}

describe("POST /special-events", () => {
  it("creates the event: 201, the event with a new uuid, Location pointing at it", async () => {
    const body = eventBody({ dates: [`${nextYear()}-10-29`] });
    const res = await api(BASE, { method: "POST", json: body });
    expect(res.status).toBe(201);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const created = (await res.json()) as EventJson;
    expect(created).toEqual({ ...body, eventId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) });
    expect(res.headers.get("Location")).toBe(`${BASE}/${created.eventId}`);

    const fetched = await api(res.headers.get("Location")!);
    expect(fetched.status).toBe(200);
    expect(await fetched.json()).toEqual(created);
  });

  it("assigns a different id to each event, even with the same fields", async () => {
    const body = eventBody();
    const a = await api(BASE, { method: "POST", json: body });
    const b = await api(BASE, { method: "POST", json: body });
    const [ea, eb] = [(await a.json()) as EventJson, (await b.json()) as EventJson];
    expect(ea.eventId).not.toBe(eb.eventId);
  });

  it("returns the dates sorted ascending", async () => {
    const y = nextYear();
    const created = await createEvent({ dates: [`${y}-12-01`, `${y}-01-31`, `${y - 1}-12-31`, `${y}-02-01`] });
    expect(created.dates).toEqual([`${y - 1}-12-31`, `${y}-01-31`, `${y}-02-01`, `${y}-12-01`]);
    const fetched = (await (await api(`${BASE}/${created.eventId}`)).json()) as EventJson;
    expect(fetched.dates).toEqual(created.dates);
  });

  it("returns exactly the price submitted (19.99, 0, 1000000, 0.1, …) on create, get and list", async () => {
    const y = nextYear();
    for (const price of [19.99, 0, 1_000_000, 0.1, 0.29, 1.15, 999_999.99]) {
      const res = await api(BASE, { method: "POST", json: eventBody({ price, dates: [`${y}-03-03`] }) });
      expect(res.status).toBe(201);
      const text = await res.text();
      expect(text).toContain(`"price":${JSON.stringify(price)}`);
      const { eventId } = JSON.parse(text) as EventJson;
      const got = (await (await api(`${BASE}/${eventId}`)).json()) as EventJson;
      expect(got.price).toBe(price);
    }
    const listed = await listAll(`startDate=${y}-03-03&endDate=${y}-03-03`);
    expect(listed.map((e) => e.price).sort((a, b) => a - b)).toEqual([0, 0.1, 0.29, 1.15, 19.99, 999_999.99, 1_000_000]);
  });

  it("allows past dates (the museum may record history) back to 2000-01-01, and dates up to 2099-12-31", async () => {
    const created = await createEvent({ dates: ["2099-12-31", "2000-01-01", "2024-02-29"] });
    expect(created.dates).toEqual(["2000-01-01", "2024-02-29", "2099-12-31"]);
  });

  it("accepts Content-Type application/json with parameters", async () => {
    const res = await api(BASE, {
      method: "POST",
      headers: { "Content-Type": "application/json; charset=utf-8" },
      body: JSON.stringify(eventBody()),
    });
    expect(res.status).toBe(201);
  });
});

describe("GET /special-events/{eventId}", () => {
  it("returns the event (200), for admin and sales alike", async () => {
    const created = await createEvent();
    for (const as of ["admin", "sales"] as const) {
      const res = await api(`${BASE}/${created.eventId}`, { as });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(created);
    }
  });

  it("finds the event by its id written in upper case", async () => {
    const created = await createEvent();
    const res = await api(`${BASE}/${created.eventId.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(created);
  });

  it("is 404 for an id that was never created", async () => {
    const eventId = crypto.randomUUID();
    const problem = await expectProblem(await api(`${BASE}/${eventId}`), 404);
    expect(problem.detail).toContain(eventId);
  });
});

describe("PATCH /special-events/{eventId}", () => {
  it("changes only the fields sent and returns the whole updated event", async () => {
    const created = await createEvent();
    const res = await api(`${BASE}/${created.eventId}`, { method: "PATCH", json: { location: "Roof Garden" } });
    expect(res.status).toBe(200);
    const updated = (await res.json()) as EventJson;
    expect(updated).toEqual({ ...created, location: "Roof Garden" });
    expect(await (await api(`${BASE}/${created.eventId}`)).json()).toEqual(updated);
  });

  it("updates each field on its own, leaving the others as they were", async () => {
    const y = nextYear();
    let current = await createEvent({ dates: [`${y}-01-01`] });
    const changes: Record<string, unknown>[] = [
      { name: uniqueName("Renamed") },
      { location: "Basement" },
      { eventDescription: "Now with more pirates." },
      { dates: [`${y}-05-05`, `${y}-04-04`] },
      { price: 0.5 },
    ];
    for (const change of changes) {
      const res = await api(`${BASE}/${current.eventId}`, { method: "PATCH", json: change });
      expect(res.status).toBe(200);
      const updated = (await res.json()) as EventJson;
      const expected = { ...current, ...change } as EventJson;
      if (change.dates) expected.dates = [...expected.dates].sort();
      expect(updated).toEqual(expected);
      current = updated;
    }
    expect(await (await api(`${BASE}/${current.eventId}`)).json()).toEqual(current);
  });

  it("moves the event in the list when its dates or name change", async () => {
    const y = nextYear();
    const a = await createEvent({ name: "a", dates: [`${y}-06-01`] });
    const b = await createEvent({ name: "b", dates: [`${y}-06-01`] });
    const window = `startDate=${y}-06-01&endDate=${y}-06-30`;
    expect(idsAmong(await listAll(window), [a, b])).toEqual([a.eventId, b.eventId]);
    await api(`${BASE}/${b.eventId}`, { method: "PATCH", json: { name: "A" } }); // "A" < "a" in byte order
    expect(idsAmong(await listAll(window), [a, b])).toEqual([b.eventId, a.eventId]);
    await api(`${BASE}/${b.eventId}`, { method: "PATCH", json: { dates: [`${y}-06-02`] } });
    expect(idsAmong(await listAll(window), [a, b])).toEqual([a.eventId, b.eventId]);
    await api(`${BASE}/${a.eventId}`, { method: "PATCH", json: { dates: [`${y}-07-01`] } });
    expect(idsAmong(await listAll(window), [a, b])).toEqual([b.eventId]);
  });

  it("is 404 for an unknown event, and writes nothing", async () => {
    const before = await dumpDatabase();
    await expectProblem(await api(`${BASE}/${crypto.randomUUID()}`, { method: "PATCH", json: { name: "Ghost", dates: ["2030-01-01"] } }), 404);
    expect(await dumpDatabase()).toBe(before);
  });
});

describe("DELETE /special-events/{eventId}", () => {
  it("answers 204 with no body; the event is then 404 everywhere and gone from lists", async () => {
    const y = nextYear();
    const doomed = await createEvent({ dates: [`${y}-08-08`] });
    const kept = await createEvent({ dates: [`${y}-08-08`] });

    const res = await api(`${BASE}/${doomed.eventId}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(res.headers.get("Content-Type")).toBeNull();

    await expectProblem(await api(`${BASE}/${doomed.eventId}`), 404);
    await expectProblem(await api(`${BASE}/${doomed.eventId}`, { method: "PATCH", json: { name: "Back" } }), 404);
    await expectProblem(await api(`${BASE}/${doomed.eventId}`, { method: "DELETE" }), 404);
    expect(idsAmong(await listAll(`startDate=${y}-08-01&endDate=${y}-08-31`), [doomed, kept])).toEqual([kept.eventId]);
  });

  it("is 404 for an event that never existed, and writes nothing", async () => {
    const before = await dumpDatabase();
    await expectProblem(await api(`${BASE}/${crypto.randomUUID()}`, { method: "DELETE" }), 404);
    expect(await dumpDatabase()).toBe(before);
  });
});

describe("GET /special-events (list)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("defaults to today in America/New_York through today + 7 days", async () => {
    // 03:30 UTC on 2031-03-10 is still 2031-03-09 in New York: a UTC "today"
    // would list the 03-17 event and drop the 03-09 one.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2031-03-10T03:30:00Z"));
    const before = await createEvent({ dates: ["2031-03-08"] });
    const today = await createEvent({ dates: ["2031-03-09"] });
    const lastDay = await createEvent({ dates: ["2031-03-16"] });
    const after = await createEvent({ dates: ["2031-03-17"] });
    const spanning = await createEvent({ dates: ["2031-03-01", "2031-03-12", "2031-04-01"] });

    const { events, links } = await list("limit=30");
    expect(idsAmong(events, [before, today, lastDay, after, spanning])).toEqual([today.eventId, spanning.eventId, lastDay.eventId]);
    expect(links).toEqual({});
    // The window the service chose is spelled out in its links.
    const paged = await list("limit=1");
    expect(paged.links.next).toBe(`${BASE}?limit=1&startDate=2031-03-09&endDate=2031-03-16&page=2`);
  });

  it("defaults endDate to seven days after the startDate given", async () => {
    const y = nextYear();
    const day0 = await createEvent({ dates: [`${y}-02-25`] });
    const day7 = await createEvent({ dates: [`${y}-03-04`] });
    const day8 = await createEvent({ dates: [`${y}-03-05`] });
    const { events, links } = await list(`startDate=${y}-02-25&limit=1`);
    expect(events.map((e) => e.eventId)).toEqual([day0.eventId]);
    expect(links.next).toBe(`${BASE}?startDate=${y}-02-25&limit=1&endDate=${y}-03-04&page=2`);
    const all = await listAll(`startDate=${y}-02-25`);
    expect(idsAmong(all, [day0, day7, day8])).toEqual([day0.eventId, day7.eventId]);
  });

  it("cuts the default window at 9999-12-31", async () => {
    // Written by the service itself: the API takes event dates up to 2099 only.
    const last = (await insertEvent(env.DB, { ...(eventBody() as CreateSpecialEventRequest), dates: ["9999-12-31"] })).event;
    const { events } = await list("startDate=9999-12-28");
    expect(idsAmong(events, [last])).toEqual([last.eventId]);
  });

  it("lists an event when any of its dates falls in [startDate, endDate], bounds included, once", async () => {
    const y = nextYear();
    const onStart = await createEvent({ dates: [`${y}-04-01`] });
    const onEnd = await createEvent({ dates: [`${y}-04-10`] });
    const many = await createEvent({ dates: [`${y}-03-01`, `${y}-04-02`, `${y}-04-03`, `${y}-04-09`] });
    const around = await createEvent({ dates: [`${y}-03-31`, `${y}-04-11`] });
    const events = await listAll(`startDate=${y}-04-01&endDate=${y}-04-10`);
    expect(idsAmong(events, [onStart, onEnd, many, around])).toEqual([onStart.eventId, many.eventId, onEnd.eventId]);
    expect(events.find((e) => e.eventId === many.eventId)).toEqual(many);
  });

  it("orders by earliest date in the window, then name in byte order, then eventId", async () => {
    const y = nextYear();
    const d = (md: string) => `${y}-${md}`;
    const early = await createEvent({ name: "zzz early", dates: [d("05-01")] });
    const zebra = await createEvent({ name: "Zebra", dates: [d("05-02")] });
    const apple = await createEvent({ name: "apple", dates: [d("05-02")] });
    const z = await createEvent({ name: "z", dates: [d("05-02")] });
    const eAcute = await createEvent({ name: "\u00c9tude", dates: [d("05-02")] });
    const twin1 = await createEvent({ name: "twin", dates: [d("05-03")] });
    const twin2 = await createEvent({ name: "twin", dates: [d("05-03")] });
    const twin3 = await createEvent({ name: "twin", dates: [d("05-03")] });
    // Its first date overall is before the window: it sorts by 05-04.
    const latecomer = await createEvent({ name: "aaa", dates: [d("04-01"), d("05-04")] });
    const twins = [twin1, twin2, twin3].map((e) => e.eventId).sort();

    const events = await listAll(`startDate=${d("05-01")}&endDate=${d("05-31")}`);
    expect(events.map((e) => e.eventId)).toEqual([
      early.eventId,
      zebra.eventId,
      apple.eventId,
      z.eventId,
      eAcute.eventId,
      ...twins,
      latecomer.eventId,
    ]);
  });

  it("pages with page/limit and links next and prev where they exist", async () => {
    const y = nextYear();
    const window = `startDate=${y}-09-01&endDate=${y}-09-30`;
    const created: EventJson[] = [];
    for (let day = 1; day <= 5; day++) created.push(await createEvent({ dates: [`${y}-09-0${day}`] }));
    const ids = created.map((e) => e.eventId);

    const p1 = await list(`${window}&limit=2`);
    expect(p1.events.map((e) => e.eventId)).toEqual(ids.slice(0, 2));
    expect(p1.links).toEqual({ next: `${BASE}?${window}&limit=2&page=2` });

    const p2 = await list(`${window}&page=2&limit=2`);
    expect(p2.events.map((e) => e.eventId)).toEqual(ids.slice(2, 4));
    expect(p2.links).toEqual({ next: `${BASE}?${window}&page=3&limit=2`, prev: `${BASE}?${window}&page=1&limit=2` });

    // Following the links walks the same pages.
    const viaNext = await api(p1.links.next!);
    expect(((await viaNext.json()) as EventJson[]).map((e) => e.eventId)).toEqual(ids.slice(2, 4));
    const viaPrev = await api(p2.links.prev!);
    expect(((await viaPrev.json()) as EventJson[]).map((e) => e.eventId)).toEqual(ids.slice(0, 2));

    const p3 = await list(`${window}&page=3&limit=2`);
    expect(p3.events.map((e) => e.eventId)).toEqual(ids.slice(4));
    expect(p3.links).toEqual({ prev: `${BASE}?${window}&page=2&limit=2` });

    const past = await list(`${window}&page=4&limit=2`);
    expect(past.events).toEqual([]);
    expect(past.links).toEqual({ prev: `${BASE}?${window}&page=3&limit=2` });

    const farPast = await list(`${window}&page=1000000&limit=30`);
    expect(farPast.events).toEqual([]);

    // Exactly one full page: no next link.
    const exact = await list(`${window}&limit=5`);
    expect(exact.events).toHaveLength(5);
    expect(exact.res.headers.get("Link")).toBeNull();
  });

  it("defaults to page 1 with 10 events, and allows a limit of 30", async () => {
    const y = nextYear();
    const window = `startDate=${y}-11-01&endDate=${y}-11-30`;
    const created: EventJson[] = [];
    for (let i = 0; i < 31; i++) created.push(await createEvent({ name: `n${String(i).padStart(2, "0")}`, dates: [`${y}-11-15`] }));
    const ids = created.map((e) => e.eventId);

    const first = await list(window);
    expect(first.events.map((e) => e.eventId)).toEqual(ids.slice(0, 10));
    expect(first.links).toEqual({ next: `${BASE}?${window}&page=2&limit=10` });

    const max = await list(`${window}&limit=30`);
    expect(max.events.map((e) => e.eventId)).toEqual(ids.slice(0, 30));
    expect(max.links.next).toBe(`${BASE}?${window}&limit=30&page=2`);
    const rest = await list(`${window}&limit=30&page=2`);
    expect(rest.events.map((e) => e.eventId)).toEqual(ids.slice(30));
  });

  it("returns [] without links for an empty window", async () => {
    const y = nextYear();
    const { res, events } = await list(`startDate=${y}-01-01&endDate=${y}-12-31`);
    expect(events).toEqual([]);
    expect(res.headers.get("Link")).toBeNull();
  });

  it("accepts endDate equal to startDate and refuses endDate before startDate (query.endDate)", async () => {
    const y = nextYear();
    const one = await createEvent({ dates: [`${y}-01-05`] });
    expect(idsAmong((await list(`startDate=${y}-01-05&endDate=${y}-01-05`)).events, [one])).toEqual([one.eventId]);
    await expectValidationError(await api(`${BASE}?startDate=${y}-01-05&endDate=${y}-01-04`), "query.endDate");
    // Against the default startDate (today) too.
    await expectValidationError(await api(`${BASE}?endDate=2000-01-01`), "query.endDate");
  });

  it("is readable by sales", async () => {
    const y = nextYear();
    const e = await createEvent({ dates: [`${y}-01-01`] });
    expect(idsAmong((await list(`startDate=${y}-01-01`, "sales")).events, [e])).toEqual([e.eventId]);
  });
});
