// Where a ticket takes places is one rule: the statements' fragment
// (src/tickets/statements/places.ts `placeRef`) and the view the triggers
// that count places read (ticket_place_refs, migrations/0024) are the same
// text, and ticket_places counts what the rule says, sale and cancellation.
// Against the test D1 with the real migrations.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import sql, { raw } from "sql-template-tag";
import { describe, expect, it } from "vitest";
import { runStep } from "../../src/platform/batch";
import { placeColumnsOf, placeRef, placesTaken } from "../../src/tickets/statements/places";
import { importTickets } from "../../src/tickets/statements/sale";
import { ACCOUNTS, plusDays } from "../support/helpers";
import { createEvent } from "./fixtures";

const squeezed = (text: string) => text.replace(/\s+/g, " ").trim();

async function schemaSql(type: "view" | "trigger", name: string): Promise<string> {
  const row = await env.DB.prepare("SELECT sql FROM sqlite_master WHERE type = ?1 AND name = ?2").bind(type, name).first<{ sql: string }>();
  expect(row, `${type} ${name}`).not.toBeNull();
  return squeezed(row!.sql);
}

describe("the view ticket_place_refs", () => {
  it("is the statements' placeRef, word for word", async () => {
    const fragment = placeRef(placeColumnsOf(raw("t")), raw("s.scope"));
    expect(fragment.values).toEqual([]);
    expect(await schemaSql("view", "ticket_place_refs")).toContain(squeezed(fragment.sql));
  });

  it("is what both triggers that count places read, a ticket's rows by its primary key", async () => {
    const read = "FROM ticket_place_refs WHERE ticket_id = NEW.ticket_id";
    expect(await schemaSql("trigger", "ticket_takes_places")).toContain(read);
    expect(await schemaSql("trigger", "cancelled_ticket_frees_places")).toContain(read);
    const { results } = await env.DB.prepare("EXPLAIN QUERY PLAN SELECT ticket_date, scope, ref FROM ticket_place_refs WHERE ticket_id = ?1")
      .bind("x")
      .all<{ detail: string }>();
    const plan = results.map((row) => row.detail).join("\n");
    expect(plan).toMatch(/SEARCH t USING INDEX sqlite_autoindex_tickets_\d \(ticket_id=\?\)/);
    expect(plan).not.toMatch(/SCAN t\b/);
  });
});

describe("placesTaken", () => {
  it("reads, of the day's holds, only those that ran out: a range of the index tickets_on_hold, not every live hold", async () => {
    const taken = placesTaken(sql`${"2095-01-01"}`, "day", sql`''`);
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN SELECT ${taken.sql}`)
      .bind(...taken.values)
      .all<{ detail: string }>();
    const plan = results.map((row) => row.detail).join("\n");
    expect(plan).toMatch(/SEARCH h USING INDEX tickets_on_hold \(ticket_date=\? AND hold_until>\? AND hold_until<\?\)/);
  });
});

/** A ticket as the property writes it: general (timed or not) or for the event. */
type Kind = { ticketType: "general"; entryTime?: string } | { ticketType: "event" };

/** The places `kinds` take, stated plainly (scope → ref → count), leaving out the cancelled ones. */
function expectedPlaces(kinds: Kind[], cancelled: boolean[], eventId: string): Record<string, number> {
  const places: Record<string, number> = {};
  const take = (key: string) => (places[key] = (places[key] ?? 0) + 1);
  kinds.forEach((kind, i) => {
    if (cancelled[i]) return;
    if (kind.ticketType === "event") take(`event ${eventId}`);
    else {
      take("day ");
      if (kind.entryTime !== undefined) take(`slot ${kind.entryTime}`);
    }
  });
  return places;
}

async function placesOn(date: string): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare("SELECT scope, ref, taken FROM ticket_places WHERE ticket_date = ?1 AND taken > 0")
    .bind(date)
    .all<{ scope: string; ref: string; taken: number }>();
  return Object.fromEntries(results.map((row) => [`${row.scope} ${row.ref}`, row.taken]));
}

describe("ticket_places", () => {
  const kind: fc.Arbitrary<Kind> = fc.oneof(
    fc.constant<Kind>({ ticketType: "general" }),
    fc.constantFrom("09:00", "10:30").map<Kind>((entryTime) => ({ ticketType: "general", entryTime })),
    fc.constant<Kind>({ ticketType: "event" }),
  );

  it("counts every ticket where the rule says, and frees its places when it is cancelled", async () => {
    const first = "2095-01-01";
    const eventId = await createEvent([first]);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(kind, fc.boolean()), { minLength: 1, maxLength: 8 }), async (tickets) => {
        const date = plusDays(first, run++);
        const kinds = tickets.map(([k]) => k);
        const rows = kinds.map((k, i) => ({
          ticketId: crypto.randomUUID(),
          ticketType: k.ticketType,
          ticketDate: date,
          ...(k.ticketType === "event" ? { eventId } : k.entryTime === undefined ? {} : { entryTime: k.entryTime }),
          confirmationCode: `ticket-${k.ticketType}-${crypto.randomUUID().slice(0, 6)}-${String(i).padStart(5, "0")}`,
          email: "places@example.com",
          priceCents: 100,
          soldBy: ACCOUNTS.sales.name,
        }));
        await runStep(importTickets(env.DB, rows));
        expect(await placesOn(date)).toEqual(expectedPlaces(kinds, [], eventId));

        const cancelled = tickets.map(([, cancel]) => cancel);
        const ids = rows.filter((_, i) => cancelled[i]).map((row) => row.ticketId);
        await env.DB.prepare("UPDATE tickets SET cancelled_at = '2095-01-01T00:00:00Z' WHERE ticket_id IN (SELECT value FROM json_each(?1))")
          .bind(JSON.stringify(ids))
          .run();
        expect(await placesOn(date)).toEqual(expectedPlaces(kinds, cancelled, eventId));
      }),
      { seed: 24, numRuns: 25 },
    );
  });
});
