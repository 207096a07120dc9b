// A sale's write of its tickets (the tickets table): the insert that
// requires the sale's conditions in its own statement, what the sale's
// answer reads of it, and the import of tickets sold elsewhere.
import sql, { join, raw, type Sql } from "sql-template-tag";
import { categoryName, categoryOf, defaultCategoryId } from "../../categories/statements";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import { sqlAmount } from "../../platform/sql";
import type { TicketLine, TicketType } from "../schemas";

export type NewTicket = TicketLine & {
  /** The buyer's e-mail (a value, or an SQL expression); a held ticket may have none yet (its confirmation brings it). */
  email: string | Sql | undefined;
  phone?: string | Sql;
  ticketId: string;
  confirmationCode: string;
  /** The price recorded on the ticket (an SQL expression, decided in the insert's own statement). */
  price: Sql;
  /** Its entry time (an SQL expression, NULL: none), decided in the insert's own statement (a start time's is the day's to decide). */
  entry: Sql;
  soldBy: string;
  /** The order the ticket is a line of (0-based), if any. */
  order?: { orderId: string; line: number };
  /** When its hold ends (an SQL timestamp expression): a held ticket; none: sold at once. */
  holdUntil?: Sql;
};

const TICKET_COLUMNS = sql`(ticket_id, ticket_type, ticket_date, event_id, confirmation_code, buyer_email, buyer_phone, price_cents, sold_by, entry_time, order_id, order_line, category, hold_until)`;

/**
 * What a sale's insert decided of its ticket: the price recorded, the
 * category (the default's, when the line named none) and, held, its hold's end.
 */
export type WrittenTicket = { price_cents: number; category: string; category_name: string; hold_until: string | null; entry_time: string | null };

/**
 * Writes a ticket only while `sale.requires` (an SQL condition on the row of
 * `sale.from`) holds, checked in the same statement so that nothing can slip
 * between a check and the write (and no two sales can both take the last
 * place: D1 runs one write at a time). Reads what it wrote, or null.
 */
export function insertTicket(db: Db, ticket: NewTicket, sale: { from: Sql; requires: Sql }): Step<WrittenTicket | null> {
  return step(
    db,
    sql`INSERT INTO tickets ${TICKET_COLUMNS}
        SELECT ${ticket.ticketId}, ${ticket.ticketType}, ${ticket.ticketDate},
               ${ticket.ticketType === "event" ? ticket.eventId : null}, ${ticket.confirmationCode},
               ${ticket.email ?? null}, ${ticket.phone ?? null}, ${ticket.price}, ${ticket.soldBy},
               ${ticket.entry},
               ${ticket.order?.orderId ?? null}, ${ticket.order?.line ?? null}, ${categoryOf(ticket.category)},
               ${ticket.holdUntil ?? null}
          FROM ${sale.from}
         WHERE ${sale.requires}
        RETURNING price_cents, category, ${categoryName(raw("tickets.category"))} AS category_name, hold_until, entry_time`,
    read.first<WrittenTicket>(),
  );
}

/**
 * `answer` (JSON text) with what the tickets written record (an SQL
 * expression, for an answer stored in the sale's own batch): each ticket of
 * its array at `paths.tickets` (objects with `ticketId`) gets its `price`
 * and `category`, and `paths.total` the sum of the prices. One parameter
 * however many tickets (D1 binds at most 100 per statement).
 */
export function withRecordedPrices(answer: string, paths: { tickets: string; total: string }): Sql {
  const written = sql`json_each(${answer}, ${paths.tickets}) a JOIN tickets t ON t.ticket_id = a.value ->> 'ticketId'`;
  const priced = sql`SELECT json_set(a.value, '$.price', ${sqlAmount(raw("t.price_cents"))}, '$.category', t.category) AS ticket
                       FROM ${written} ORDER BY a.key`;
  return sql`json_set(${answer},
    ${paths.total}, (SELECT ${sqlAmount(raw("sum(t.price_cents)"))} FROM ${written}),
    ${paths.tickets}, json((SELECT json_group_array(json(ticket)) FROM (${priced}))))`;
}

/** How many of the tickets `ticketIds` are written (an SQL expression, for a guard). */
export function ticketsWritten(ticketIds: readonly string[]): Sql {
  return sql`(SELECT count(*) FROM tickets WHERE ticket_id IN (${join(ticketIds)}))`;
}

/** A ticket as `importTickets` writes it: the columns of a sale's row, as the sale would have filled them. */
type ImportedTicket = {
  ticketId: string;
  ticketType: TicketType;
  ticketDate: IsoDate;
  eventId?: string;
  entryTime?: string;
  confirmationCode: string;
  email: string;
  phone?: string;
  priceCents: number;
  soldBy: string;
};

/**
 * Writes tickets sold elsewhere, many in one statement (one JSON parameter),
 * without the sale's checks: for loading a database (the bench's seed), never
 * for a sale. The triggers of migrations/0024 count their places as a sale's.
 * @public (used by the tools, which bundle this file)
 */
export function importTickets(db: Db, tickets: ImportedTicket[]): Step<number> {
  const rows = JSON.stringify(tickets);
  return step(
    db,
    sql`INSERT INTO tickets ${TICKET_COLUMNS}
        SELECT value ->> 'ticketId', value ->> 'ticketType', value ->> 'ticketDate', value ->> 'eventId',
               value ->> 'confirmationCode', value ->> 'email', value ->> 'phone', value ->> 'priceCents',
               value ->> 'soldBy', value ->> 'entryTime', NULL, NULL, ${defaultCategoryId}, NULL
          FROM json_each(${rows})`,
    read.changes,
  );
}


/** True once the ticket `ticketId` is written. */
export function ticketExists(ticketId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM tickets WHERE ticket_id = ${ticketId})`;
}
