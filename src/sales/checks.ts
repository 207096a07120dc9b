// The sale rules checked before a ticket is written (the rest the insert
// checks itself, see `insertTicket`): for a single purchase and for each line
// of an order alike.
import { eventNotFound } from "../events/problems";
import type { SpecialEvent } from "../events/schemas";
import { selectActiveEvent } from "../events/statements";
import { PUBLISHED_DAYS_AHEAD } from "../hours/calendar";
import type { FieldError, ProblemError } from "../http/problem";
import { Batch, type Db } from "../platform/batch";
import { addDays, type IsoDate } from "../platform/dates";
import { toCents } from "../platform/money";
import type { TicketLine } from "../tickets/schemas";

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
  | { kind: "ok"; priceCents: number; eventName?: string }
  | { kind: "invalid"; errors: FieldError[] }
  | { kind: "not-found"; problem: ProblemError };

/**
 * The rules of a line that need the clock or an event: the date is today or
 * later (museum time zone) and within the published year; an event ticket
 * needs an active event (`events`) that has that date, even when the museum
 * is otherwise closed. Its price: the event's, or `generalPriceCents`.
 */
export function checkLine(
  line: TicketLine,
  context: { today: IsoDate; events: Map<string, SpecialEvent>; generalPriceCents: number },
): LineCheck {
  const date = line.ticketDate;
  const lastDay = addDays(context.today, PUBLISHED_DAYS_AHEAD);
  const dateError =
    date < context.today
      ? `Must be today (${context.today}) or later in the museum's time zone.`
      : date > lastDay
        ? `Tickets are sold up to ${lastDay}.`
        : null;
  if (dateError) return { kind: "invalid", errors: [{ path: "ticketDate", message: dateError }] };
  if (line.ticketType === "general") return { kind: "ok", priceCents: context.generalPriceCents };

  const event = context.events.get(line.eventId);
  if (!event) return { kind: "not-found", problem: eventNotFound(line.eventId) };
  if (!event.dates.includes(date)) {
    const message = `The event does not take place on ${date}; its dates are ${event.dates.join(", ")}.`;
    return { kind: "invalid", errors: [{ path: "ticketDate", message }] };
  }
  return { kind: "ok", priceCents: toCents(event.price), eventName: event.name };
}
