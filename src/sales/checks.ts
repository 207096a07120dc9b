// The sale rules checked before a ticket is written (the rest the insert
// checks itself, see `insertTicket`): for a single purchase and for each line
// of an order alike.
import { eventNotFound } from "../events/problems";
import { selectActiveEvent } from "../events/statements";
import type { SpecialEvent } from "../events/schemas";
import { PUBLISHED_DAYS_AHEAD } from "../hours/calendar";
import type { FieldError, ProblemError } from "../http/problem";
import { Batch, type Db } from "../platform/batch";
import { addDays, type IsoDate } from "../platform/dates";
import type { TicketLine } from "../tickets/schemas";
import { categoryOf, categoryPrice } from "../categories/statements";
import { eventPrice } from "../events/statements";
import type { Sql } from "sql-template-tag";

/** The active events among `eventIds`, in one round trip (none when there are no ids). */
export async function readActiveEvents(db: Db, eventIds: readonly string[]): Promise<Map<string, SpecialEvent>> {
  const ids = [...new Set(eventIds)];
  if (ids.length === 0) return new Map();
  const batch = new Batch(db);
  const handles = ids.map((id) => batch.add(selectActiveEvent(db, id)));
  await batch.run();
  return new Map(handles.flatMap((handle, i) => (handle.value ? [[ids[i]!, handle.value] as const] : [])));
}

/** The event ids of ticket lines. */
export function eventIdsOf(lines: readonly TicketLine[]): string[] {
  return lines.flatMap((line) => (line.ticketType === "event" ? [line.eventId] : []));
}

/** What the checks say of a line: what to write, or why not (field errors first, then the missing event). */
export type LineCheck =
  | { kind: "ok"; eventName?: string }
  | { kind: "invalid"; errors: FieldError[] }
  | { kind: "not-found"; problem: ProblemError };

/**
 * The price (cents) a line records, an SQL expression the insert evaluates
 * itself (so a price change never slips between a read and the write): its
 * category's price for a general ticket; for an event ticket the event's
 * price for its category, else the event's price.
 */
export function linePrice(line: TicketLine): Sql {
  const category = categoryOf(line.category);
  return line.ticketType === "event" ? eventPrice(line.eventId, category) : categoryPrice(category);
}

/**
 * The rules of a line that need the clock or an event: the date is today or
 * later (museum time zone) and within the published year; an event ticket
 * needs an active event (`events`) that has that date, even when the museum
 * is otherwise closed.
 */
export function checkLine(line: TicketLine, context: { today: IsoDate; events: Map<string, SpecialEvent> }): LineCheck {
  const date = line.ticketDate;
  const lastDay = addDays(context.today, PUBLISHED_DAYS_AHEAD);
  const dateError =
    date < context.today
      ? `Must be today (${context.today}) or later in the museum's time zone.`
      : date > lastDay
        ? `Tickets are sold up to ${lastDay}.`
        : null;
  if (dateError) return { kind: "invalid", errors: [{ path: "ticketDate", message: dateError }] };
  if (line.ticketType === "general") return { kind: "ok" };

  const event = context.events.get(line.eventId);
  if (!event) return { kind: "not-found", problem: eventNotFound(line.eventId) };
  if (!event.dates.includes(date)) {
    const message = `The event does not take place on ${date}; its dates are ${event.dates.join(", ")}.`;
    return { kind: "invalid", errors: [{ path: "ticketDate", message }] };
  }
  return { kind: "ok", eventName: event.name };
}
