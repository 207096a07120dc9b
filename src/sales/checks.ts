// The sale rules checked before a ticket is written (the rest the insert
// checks itself, see `insertTicket`): for a single purchase and for each line
// of an order alike.
import sql, { type Sql } from "sql-template-tag";
import { categoryOf, categoryPrice } from "../categories/statements";
import { eventNotFound } from "../events/problems";
import { type EventForSale, eventPrice, selectEventForSale } from "../events/statements";
import { PUBLISHED_DAYS_AHEAD } from "../hours/calendar";
import type { FieldError, ProblemError } from "../http/problem";
import { Batch, type Db } from "../platform/batch";
import { addDays, type IsoDate } from "../platform/dates";
import type { TicketLine } from "../tickets/schemas";

/**
 * The active events the event lines of `lines` name, each with the lines'
 * dates it takes place on, in one round trip (none when there are no event lines).
 */
export async function readEventsForSale(db: Db, lines: readonly TicketLine[]): Promise<Map<string, EventForSale>> {
  const datesOf = new Map<string, Set<IsoDate>>();
  for (const line of lines) {
    if (line.ticketType === "event") datesOf.set(line.eventId, (datesOf.get(line.eventId) ?? new Set()).add(line.ticketDate));
  }
  if (datesOf.size === 0) return new Map();
  const batch = new Batch(db);
  const handles = [...datesOf].map(([id, dates]) => [id, batch.add(selectEventForSale(db, id, [...dates]))] as const);
  await batch.run();
  return new Map(handles.flatMap(([id, handle]) => (handle.value ? [[id, handle.value] as const] : [])));
}

/** What the checks say of a line: what to write, or why not (field errors first, then the missing event). */
export type LineCheck =
  | { kind: "ok"; eventName?: string }
  | { kind: "invalid"; errors: FieldError[] }
  | { kind: "not-found"; problem: ProblemError };

/**
 * The price (cents) of a ticket in the category `categoryId` (an SQL
 * expression): for the event `eventId` (an SQL expression), the event's price
 * for it; for general admission (null), the category's. An SQL expression a
 * sale's insert evaluates itself (so a price change never slips between a
 * read and the write), and what availability lists.
 */
export function priceOf(eventId: Sql | null, categoryId: Sql): Sql {
  return eventId === null ? categoryPrice(categoryId) : eventPrice(eventId, categoryId);
}

/** The price (cents) a line records: `priceOf` its event (if any) and its category. */
export function linePrice(line: TicketLine): Sql {
  return priceOf(line.ticketType === "event" ? sql`${line.eventId}` : null, categoryOf(line.category));
}

/** The days tickets are sold on at `today` (the museum's): from today to the end of the published year. */
export function saleWindow(today: IsoDate): { first: IsoDate; last: IsoDate } {
  return { first: today, last: addDays(today, PUBLISHED_DAYS_AHEAD) };
}

/** Where `date` falls against the days tickets are sold on at `today`: before them, after them, or null (among them). */
export function outsideSaleWindow(date: IsoDate, today: IsoDate): "before" | "after" | null {
  const { first, last } = saleWindow(today);
  return date < first ? "before" : date > last ? "after" : null;
}

/**
 * The rules of a line that need the clock or an event: the date is among
 * the days tickets are sold on; an event ticket needs an active event
 * (`events`) that takes place that day, even when the museum is otherwise closed.
 */
export function checkLine(line: TicketLine, context: { today: IsoDate; events: Map<string, EventForSale> }): LineCheck {
  const date = line.ticketDate;
  const outside = outsideSaleWindow(date, context.today);
  if (outside) {
    const message =
      outside === "before"
        ? `Must be today (${context.today}) or later in the museum's time zone.`
        : `Tickets are sold up to ${saleWindow(context.today).last}.`;
    return { kind: "invalid", errors: [{ path: "ticketDate", message }] };
  }
  if (line.ticketType === "general") return { kind: "ok" };

  const forSale = context.events.get(line.eventId);
  if (!forSale) return { kind: "not-found", problem: eventNotFound(line.eventId) };
  const { event, takesPlaceOn } = forSale;
  if (!takesPlaceOn.includes(date)) {
    const message = `The event does not take place on ${date}; its dates are ${event.dates.join(", ")}.`;
    return { kind: "invalid", errors: [{ path: "ticketDate", message }] };
  }
  return { kind: "ok", eventName: event.name };
}
