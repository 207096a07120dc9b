// The rules a sale's lines obey together (src/tickets/statements/lines.ts),
// each written once over a relation of lines: a request's (JSON, which the
// sale's inserts and a refusal's explanation judge) and an order's tickets
// (which a late confirmation and the box office judge) give the same answers,
// the ones the rules state. Against the test D1 with the real migrations.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import sql, { raw, type Sql } from "sql-template-tag";
import { describe, expect, it } from "vitest";
import type { TicketLine } from "../../src/tickets/schemas";
import {
  lacksCompanion,
  linesAhead,
  orderLines,
  requestLineColumns,
  requestLines,
  ticketLineColumns,
} from "../../src/tickets/statements/lines";
import { ACCOUNTS } from "../support/helpers";
import { createEvent } from "./fixtures";

const DATES = ["2094-03-01", "2094-03-02"];
const CHILD = "lines-child";

/** What each line's rules answer: the places ahead of it in each scope, and whether it lacks a companion. */
type Judged = { day: number; slot: number; event: number; lacks: number };

/** The rules, stated plainly: the oracle both relations are held to. */
function expected(lines: TicketLine[]): Judged[] {
  const placeOf = (l: TicketLine) => `${l.ticketDate} ${l.ticketType === "event" ? l.eventId : `general ${l.entryTime ?? ""}`}`;
  return lines.map((line, i) => {
    const ahead = lines.slice(0, i).filter((o) => o.ticketDate === line.ticketDate);
    const general = (l: TicketLine) => l.ticketType === "general";
    const entry = (l: TicketLine) => (l.ticketType === "general" ? l.entryTime : undefined);
    const event = (l: TicketLine) => (l.ticketType === "event" ? l.eventId : undefined);
    const companions = lines.filter((o, j) => j !== i && placeOf(o) === placeOf(line) && o.category !== CHILD);
    return {
      day: general(line) ? ahead.filter(general).length : 0,
      slot: entry(line) === undefined ? 0 : ahead.filter((o) => entry(o) === entry(line)).length,
      event: event(line) === undefined ? 0 : ahead.filter((o) => event(o) === event(line)).length,
      lacks: line.category === CHILD && companions.length === 0 ? 1 : 0,
    };
  });
}

async function all<T>(query: Sql): Promise<T[]> {
  return (await env.DB.prepare(query.sql).bind(...query.values).all<T>()).results;
}

const judged = (lines: Sql, line: Parameters<typeof linesAhead>[1]) => {
  const ahead = linesAhead(lines, line);
  return sql`${ahead.day} AS day, ${ahead.slot} AS slot, ${ahead.event} AS event, ${lacksCompanion(lines, line)} AS lacks`;
};

/** Each line judged among a request's lines (JSON), as a sale and its refusal judge them. */
async function judgedAsRequest(lines: TicketLine[]): Promise<Judged[]> {
  const relation = requestLines(lines);
  const rows = [];
  for (const [i, line] of lines.entries()) rows.push(...(await all<Judged>(sql`SELECT ${judged(relation, requestLineColumns(line, i))}`)));
  return rows;
}

/** Each line judged among its order's tickets, as a late confirmation and the box office judge them. */
async function judgedAsOrder(lines: TicketLine[]): Promise<Judged[]> {
  const orderId = crypto.randomUUID();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO orders (order_id, sold_by) VALUES (?1, ?2)").bind(orderId, ACCOUNTS.sales.name),
    ...lines.map((line, i) =>
      env.DB.prepare(
        `INSERT INTO tickets (ticket_id, ticket_type, ticket_date, event_id, entry_time, category, confirmation_code,
                              buyer_email, price_cents, sold_by, order_id, order_line)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'lines@example.com', 0, ?8, ?9, ?10)`,
      ).bind(
        crypto.randomUUID(),
        line.ticketType,
        line.ticketDate,
        line.ticketType === "event" ? line.eventId : null,
        line.ticketType === "general" ? (line.entryTime ?? null) : null,
        line.category ?? "adult",
        `lines-${crypto.randomUUID()}`,
        ACCOUNTS.sales.name,
        orderId,
        i,
      ),
    ),
  ]);
  const t = raw("t");
  return all<Judged>(sql`SELECT ${judged(orderLines(sql`${t}.order_id`), ticketLineColumns(t))}
                           FROM tickets t WHERE t.order_id = ${orderId} ORDER BY t.order_line`);
}

describe("the rules of a sale's lines together", () => {
  it("give a request's lines and an order's tickets the same answers, the rules' own", async () => {
    await env.DB.prepare("INSERT INTO ticket_categories (category_id, name, price_cents, accompanied) VALUES (?1, 'Child', 0, 1)").bind(CHILD).run();
    const events = [await createEvent(DATES), await createEvent(DATES)];
    const line: fc.Arbitrary<TicketLine> = fc
      .tuple(
        fc.constantFrom(...DATES),
        fc.oneof(fc.constant(undefined), fc.constantFrom("10:00", "11:00"), fc.constantFrom(...events).map((eventId) => ({ eventId }))),
        fc.constantFrom(undefined, "adult", CHILD),
      )
      .map(([ticketDate, where, category]) =>
        typeof where === "object"
          ? { ticketType: "event", ticketDate, eventId: where.eventId, ...(category ? { category } : {}) }
          : { ticketType: "general", ticketDate, ...(where ? { entryTime: where } : {}), ...(category ? { category } : {}) },
      );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 7 }), async (lines) => {
        const rules = expected(lines);
        expect(await judgedAsRequest(lines)).toEqual(rules);
        expect(await judgedAsOrder(lines)).toEqual(rules);
      }),
      { seed: 39, numRuns: 40 },
    );
  });
});
