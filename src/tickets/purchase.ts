import type { Db } from "../env";
import { findSpecialEvent } from "../events/queries";
import { PUBLISHED_DAYS_AHEAD } from "../hours/calendar";
import { addDays, type IsoDate } from "../platform/dates";
import { validationProblem } from "../http/errors";
import { eventNotFound } from "../events/problems";
import type { BuyMuseumTicketsRequest } from "./schemas";

function ticketDateProblem(message: string) {
  return validationProblem([{ path: "ticketDate", message }]);
}

/** A general ticket for a day the museum is closed. */
export function museumClosed(date: IsoDate) {
  return ticketDateProblem(`The museum is closed on ${date}.`);
}

/**
 * The contract's sale rules that need the clock or the database: the date is
 * today or later (museum time zone) and within the published year; a general
 * ticket needs an open day (checked by the insert itself, see
 * `insertTicket`; a refused insert becomes `museumClosed`); an event ticket
 * needs an active event on that date (even when the museum is otherwise
 * closed). Returns the event's name.
 */
export async function checkTicketSale(
  db: Db,
  request: BuyMuseumTicketsRequest,
  today: IsoDate,
): Promise<{ eventName?: string }> {
  const date = request.ticketDate;
  if (date < today) throw ticketDateProblem(`Must be today (${today}) or later in the museum's time zone.`);
  const lastDay = addDays(today, PUBLISHED_DAYS_AHEAD);
  if (date > lastDay) throw ticketDateProblem(`Tickets are sold up to ${lastDay}.`);

  if (request.ticketType === "general") return {};
  const event = await findSpecialEvent(db, request.eventId!);
  if (!event) throw eventNotFound(request.eventId!);
  if (!event.dates.includes(date)) {
    throw ticketDateProblem(`The event does not take place on ${date}; its dates are ${event.dates.join(", ")}.`);
  }
  return { eventName: event.name };
}
