// Data-access tests: the events service and the statements of
// src/events/statements.ts called directly against the test D1 database
// (real migrations, no mocks).
import { env } from "cloudflare:workers";
import { clearD1Faults, injectD1Faults, withD1Faults } from "../support/d1-faults";
import { describe, expect, it } from "vitest";
import type { CreateSpecialEventRequest, UpdateSpecialEventRequest } from "../../src/events/schemas";
import { cancelEvent, createEvent, findEvent, listEvents, updateEvent } from "../../src/events/service";
import { eventPayload, eventsInWindowQuery } from "../../src/events/statements";
import type { Db } from "../../src/platform/batch";
import { forgetTicketLookups } from "../../src/ticket-image";
import { ticketsFollowing } from "../../src/tickets/follow";
import { uniqueName, yearAllocator } from "../support/helpers";

const nextYear = yearAllocator(4000);
// The tickets' part of an event change, as app.ts hands it to the events.
const tickets = ticketsFollowing(forgetTicketLookups).events;

const insertSpecialEvent = async (db: Db, event: CreateSpecialEventRequest) => (await createEvent(db, event)).event;
const findSpecialEvent = findEvent;
const cancelSpecialEvent = (db: Parameters<typeof cancelEvent>[0], eventId: string) => cancelEvent(db, eventId, "2000-01-01", tickets);
const listSpecialEventsInWindow = listEvents;
const writeSpecialEventChanges = async (db: Db, eventId: string, changes: UpdateSpecialEventRequest) =>
  (await updateEvent(db, eventId, changes, { cancelTickets: false, today: "2000-01-01" }, tickets))?.event ?? null;

function input(overrides: Partial<CreateSpecialEventRequest> = {}): CreateSpecialEventRequest {
  return {
    name: uniqueName(),
    location: "Main Hall",
    eventDescription: "A talk.",
    dates: [`${nextYear()}-06-01`],
    price: 12.5,
    ...overrides,
  };
}

type EventRowDb = {
  event_id: string;
  name: string;
  location: string;
  description: string;
  price_cents: number;
  cancelled_at: string | null;
};
type DateRowDb = { event_id: string; event_date: string; event_name: string };

async function eventRow(eventId: string) {
  return env.DB.prepare("SELECT * FROM special_events WHERE event_id = ?1").bind(eventId).first<EventRowDb>();
}

async function dateRows(eventId: string) {
  const { results } = await env.DB.prepare(
    "SELECT event_id, event_date, event_name FROM special_event_dates WHERE event_id = ?1 ORDER BY event_date",
  )
    .bind(eventId)
    .all<DateRowDb>();
  return results;
}

async function countEventsNamed(name: string) {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM special_events WHERE name = ?1")
    .bind(name)
    .first<{ n: number }>();
  return row!.n;
}

describe("insertSpecialEvent", () => {
  it("stores the event and one date row per date, and returns it with sorted dates", async () => {
    const y = nextYear();
    const event = await insertSpecialEvent(
      env.DB,
      input({ dates: [`${y}-03-02`, `${y}-01-09`, `${y}-02-28`], price: 19.99 }),
    );
    expect(event.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(event.dates).toEqual([`${y}-01-09`, `${y}-02-28`, `${y}-03-02`]);
    expect(event.price).toBe(19.99);

    const row = await eventRow(event.eventId);
    expect(row).toMatchObject({ name: event.name, location: "Main Hall", description: "A talk.", price_cents: 1999, cancelled_at: null });
    expect(await dateRows(event.eventId)).toEqual(
      event.dates.map((d) => ({ event_id: event.eventId, event_date: d, event_name: event.name })),
    );
  });

  it("stores prices as whole cents that convert back to the exact price", async () => {
    for (const [price, cents] of [[0, 0], [0.1, 10], [1.15, 115], [0.29, 29], [999_999.99, 99_999_999], [1_000_000, 100_000_000]] as const) {
      const event = await insertSpecialEvent(env.DB, input({ price }));
      expect(event.price).toBe(price);
      expect((await eventRow(event.eventId))!.price_cents).toBe(cents);
      expect((await findSpecialEvent(env.DB, event.eventId))!.price).toBe(price);
    }
  });

  it("keeps 366 dates (more than D1's 100 bound parameters per statement)", async () => {
    const y = 2096; // a leap year: 366 days
    const dates = Array.from({ length: 366 }, (_, i) => new Date(Date.UTC(y, 0, 1 + i)).toISOString().slice(0, 10));
    const event = await insertSpecialEvent(env.DB, input({ dates: [...dates].reverse() }));
    expect(event.dates).toEqual(dates);
    expect(await dateRows(event.eventId)).toHaveLength(366);
  });

  it("writes nothing when a date row fails: the event and its dates are one atomic batch", async () => {
    // The schema layer refuses duplicate dates before they get here; below it,
    // the (event_id, event_date) primary key refuses them. The date insert is
    // the batch's second statement, so the event row of the first must go too.
    const name = uniqueName("Half written");
    const before = await env.DB.prepare("SELECT count(*) AS n FROM special_event_dates").first<{ n: number }>();
    await expect(insertSpecialEvent(env.DB, input({ name, dates: ["4999-01-01", "4999-01-01"] }))).rejects.toThrow(
      /UNIQUE|PRIMARY KEY|constraint/i,
    );
    expect(await countEventsNamed(name)).toBe(0);
    const after = await env.DB.prepare("SELECT count(*) AS n FROM special_event_dates").first<{ n: number }>();
    expect(after!.n).toBe(before!.n);
  });
});

describe("findSpecialEvent", () => {
  it("returns the stored event, and null for an unknown id", async () => {
    const created = await insertSpecialEvent(env.DB, input());
    expect(await findSpecialEvent(env.DB, created.eventId)).toEqual(created);
    expect(await findSpecialEvent(env.DB, crypto.randomUUID())).toBeNull();
  });

  it("returns null for a cancelled event", async () => {
    const created = await insertSpecialEvent(env.DB, input());
    expect(await cancelSpecialEvent(env.DB, created.eventId)).toBe(true);
    expect(await findSpecialEvent(env.DB, created.eventId)).toBeNull();
  });
});

describe("writeSpecialEventChanges", () => {
  it("changes only the fields given and returns the whole event", async () => {
    const created = await insertSpecialEvent(env.DB, input());
    const updated = await writeSpecialEventChanges(env.DB, created.eventId, { location: "Roof Garden", price: 0 });
    expect(updated).toEqual({ ...created, location: "Roof Garden", price: 0 });
    expect(await findSpecialEvent(env.DB, created.eventId)).toEqual(updated);
  });

  it("keeps special_event_dates.event_name in sync when the name changes", async () => {
    const y = nextYear();
    const created = await insertSpecialEvent(env.DB, input({ dates: [`${y}-01-01`, `${y}-01-02`] }));
    const name = uniqueName("Renamed");
    await writeSpecialEventChanges(env.DB, created.eventId, { name });
    expect((await eventRow(created.eventId))!.name).toBe(name);
    const rows = await dateRows(created.eventId);
    expect(rows.map((r) => r.event_date)).toEqual(created.dates);
    expect(rows.every((r) => r.event_name === name)).toBe(true);
  });

  it("replaces the dates (old ones gone) and copies the current name onto them", async () => {
    const y = nextYear();
    const created = await insertSpecialEvent(env.DB, input({ dates: [`${y}-01-01`, `${y}-01-02`] }));
    const updated = await writeSpecialEventChanges(env.DB, created.eventId, { dates: [`${y}-05-05`, `${y}-01-02`, `${y}-04-04`] });
    expect(updated!.dates).toEqual([`${y}-01-02`, `${y}-04-04`, `${y}-05-05`]);
    expect(await dateRows(created.eventId)).toEqual(
      updated!.dates.map((d) => ({ event_id: created.eventId, event_date: d, event_name: created.name })),
    );
  });

  it("renames and replaces dates together, the new dates carrying the new name", async () => {
    const y = nextYear();
    const created = await insertSpecialEvent(env.DB, input({ dates: [`${y}-01-01`] }));
    const name = uniqueName("Both");
    await writeSpecialEventChanges(env.DB, created.eventId, { name, dates: [`${y}-02-02`] });
    expect(await dateRows(created.eventId)).toEqual([{ event_id: created.eventId, event_date: `${y}-02-02`, event_name: name }]);
  });

  it("changes nothing when the new dates fail at the SQL level (one atomic batch)", async () => {
    const y = nextYear();
    const created = await insertSpecialEvent(env.DB, input({ dates: [`${y}-01-01`, `${y}-01-02`] }));
    // A statement that fails inside the batch, after the dates were deleted and inserted.
    injectD1Faults({ on: "batch", effect: "constraint", after: 3 });
    await expect(
      writeSpecialEventChanges(withD1Faults(env.DB), created.eventId, { name: uniqueName("Never"), dates: [`${y}-03-03`] }),
    ).rejects.toThrow(/constraint/i);
    expect(clearD1Faults()).toBe(1);
    expect(await findSpecialEvent(env.DB, created.eventId)).toEqual(created);
    expect((await dateRows(created.eventId)).map((r) => [r.event_date, r.event_name])).toEqual(
      created.dates.map((d) => [d, created.name]),
    );
  });

  it("returns null and writes nothing for an unknown id", async () => {
    const eventId = crypto.randomUUID();
    expect(await writeSpecialEventChanges(env.DB, eventId, { name: "Ghost", dates: ["4998-01-01"] })).toBeNull();
    expect(await eventRow(eventId)).toBeNull();
    expect(await dateRows(eventId)).toEqual([]);
  });

  it("returns null and changes nothing for a cancelled event", async () => {
    const y = nextYear();
    const created = await insertSpecialEvent(env.DB, input({ dates: [`${y}-01-01`] }));
    await cancelSpecialEvent(env.DB, created.eventId);
    const rowBefore = await eventRow(created.eventId);
    expect(await writeSpecialEventChanges(env.DB, created.eventId, { name: "Zombie", dates: [`${y}-09-09`] })).toBeNull();
    expect(await writeSpecialEventChanges(env.DB, created.eventId, { name: "Zombie" })).toBeNull();
    expect(await eventRow(created.eventId)).toEqual(rowBefore);
    expect(await dateRows(created.eventId)).toEqual([{ event_id: created.eventId, event_date: `${y}-01-01`, event_name: created.name }]);
  });
});

describe("cancelSpecialEvent", () => {
  it("marks the event cancelled and keeps its row and dates (for tickets already sold)", async () => {
    const created = await insertSpecialEvent(env.DB, input());
    expect(await cancelSpecialEvent(env.DB, created.eventId)).toBe(true);
    const row = await eventRow(created.eventId);
    expect(row!.cancelled_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(row!.name).toBe(created.name);
    expect(await dateRows(created.eventId)).toHaveLength(created.dates.length);
  });

  it("returns false for an unknown or already cancelled event", async () => {
    const created = await insertSpecialEvent(env.DB, input());
    expect(await cancelSpecialEvent(env.DB, created.eventId)).toBe(true);
    const cancelledAt = (await eventRow(created.eventId))!.cancelled_at;
    expect(await cancelSpecialEvent(env.DB, created.eventId)).toBe(false);
    expect((await eventRow(created.eventId))!.cancelled_at).toBe(cancelledAt);
    expect(await cancelSpecialEvent(env.DB, crypto.randomUUID())).toBe(false);
  });
});

describe("eventPayload (the publishNewEvent body the webhook outbox records)", () => {
  const payloadOf = async (eventId: string) => {
    const query = eventPayload(eventId);
    const row = await env.DB.prepare(query.sql).bind(...query.values).first<{ payload: string }>();
    return row ? row.payload : null;
  };

  it("is the event exactly as findSpecialEvent returns it, to the letter: whole and fractional prices, dates in order", async () => {
    const y = nextYear();
    for (const price of [0, 60, 12.5, 19.99, 999999.99]) {
      const created = await insertSpecialEvent(env.DB, input({ price, dates: [`${y}-03-03`, `${y}-01-01`, `${y}-02-02`] }));
      expect(await payloadOf(created.eventId)).toBe(JSON.stringify(await findSpecialEvent(env.DB, created.eventId)));
    }
  });

  it("finds no row for a cancelled or unknown event (nothing is published)", async () => {
    const created = await insertSpecialEvent(env.DB, input());
    await cancelSpecialEvent(env.DB, created.eventId);
    expect(await payloadOf(created.eventId)).toBeNull();
    expect(await payloadOf(crypto.randomUUID())).toBeNull();
  });
});

describe("listSpecialEventsInWindow", () => {
  it("lists each active event once, by first date in the window, then name in byte order, then id", async () => {
    const y = nextYear();
    const d = (md: string) => `${y}-${md}`;
    const make = (name: string, dates: string[]) => insertSpecialEvent(env.DB, input({ name, dates }));
    const mid = await make("mid", [d("05-02"), d("05-09")]);
    const zebra = await make("Zebra", [d("05-03")]);
    const apple = await make("apple", [d("05-03"), d("05-04")]);
    const accent = await make("\u00c9clair", [d("05-03")]);
    const z = await make("z", [d("05-03")]);
    const twinA = await make("twin", [d("05-04")]);
    const twinB = await make("twin", [d("05-04")]);
    const early = await make("early", [d("04-20"), d("05-05")]);
    await make("before", [d("04-30")]);
    await make("after", [d("05-11")]);
    await make("straddles", [d("04-01"), d("06-01")]);
    const cancelled = await make("cancelled", [d("05-01")]);
    await cancelSpecialEvent(env.DB, cancelled.eventId);

    const twins = [twinA, twinB].sort((a, b) => (a.eventId < b.eventId ? -1 : 1));
    const expected = [mid, zebra, apple, z, accent, ...twins, early];
    const all = await listSpecialEventsInWindow(env.DB, { startDate: d("05-01"), endDate: d("05-10"), limit: 100, offset: 0 });
    expect(all).toEqual(expected);

    // Pages are slices of that same order.
    const page2 = await listSpecialEventsInWindow(env.DB, { startDate: d("05-01"), endDate: d("05-10"), limit: 3, offset: 3 });
    expect(page2).toEqual(expected.slice(3, 6));
    const past = await listSpecialEventsInWindow(env.DB, { startDate: d("05-01"), endDate: d("05-10"), limit: 3, offset: 9 });
    expect(past).toEqual([]);
  });

  it("includes both window bounds", async () => {
    const y = nextYear();
    const first = await insertSpecialEvent(env.DB, input({ dates: [`${y}-07-01`] }));
    const last = await insertSpecialEvent(env.DB, input({ dates: [`${y}-07-08`] }));
    const rows = await listSpecialEventsInWindow(env.DB, { startDate: `${y}-07-01`, endDate: `${y}-07-08`, limit: 10, offset: 0 });
    expect(rows.map((e) => e.eventId)).toEqual([first.eventId, last.eventId]);
    const oneDay = await listSpecialEventsInWindow(env.DB, { startDate: `${y}-07-08`, endDate: `${y}-07-08`, limit: 10, offset: 0 });
    expect(oneDay.map((e) => e.eventId)).toEqual([last.eventId]);
  });

  it("orders a renamed event by its new name", async () => {
    const y = nextYear();
    const b = await insertSpecialEvent(env.DB, input({ name: "b", dates: [`${y}-02-02`] }));
    const c = await insertSpecialEvent(env.DB, input({ name: "c", dates: [`${y}-02-02`] }));
    await writeSpecialEventChanges(env.DB, c.eventId, { name: "a" });
    const rows = await listSpecialEventsInWindow(env.DB, { startDate: `${y}-02-02`, endDate: `${y}-02-02`, limit: 10, offset: 0 });
    expect(rows.map((e) => [e.eventId, e.name])).toEqual([[c.eventId, "a"], [b.eventId, "b"]]);
  });

  it("walks the special_event_dates_by_date index in output order (no temp B-tree)", async () => {
    const query = eventsInWindowQuery({ startDate: "2030-01-01", endDate: "2030-01-08", limit: 11, offset: 0 });
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.values)
      .all<{ id: number; parent: number; detail: string }>();
    const details = results.map((r) => r.detail);
    expect(details.length).toBeGreaterThan(0);
    expect(details.some((d) => /^SEARCH d USING (COVERING )?INDEX special_event_dates_by_date \(event_date>\? AND event_date<\?\)/.test(d))).toBe(true);
    expect(details.filter((d) => /TEMP B-TREE/.test(d))).toEqual([]);
    // The outer loop is the date index, not a scan of special_events.
    expect(details.filter((d) => /^SCAN (e|special_events)\b/.test(d))).toEqual([]);
  });
});
