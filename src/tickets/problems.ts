// The problems a ticket's state answers with, for a gate and the box office alike.
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import type { TicketStatus } from "./schemas";

/** 404 for a ticket this service does not hold, or one the caller may not see (tickets/access.ts): the same answer. */
export function ticketNotFound(ticketId: string): ProblemError {
  return new ProblemError(404, { detail: `No ticket with id ${ticketId}.` });
}

/** 404 for a confirmation code of no ticket the caller may see; the code is not echoed (it is as good as the ticket). */
export function confirmationCodeNotFound(): ProblemError {
  return new ProblemError(404, { detail: "No ticket with this confirmation code." });
}

/** 409: the ticket was admitted already (`gate`: who admitted it, for a gate's answer). */
export function alreadyAdmitted(ticketId: string, admittedAt: string, gate?: string): ProblemError {
  return new ProblemError(409, {
    type: PROBLEM_TYPES.alreadyAdmitted,
    title: "Already admitted",
    detail: `This ticket was admitted at ${admittedAt}${gate === undefined ? "" : ` by ${gate}`}.`,
    extensions: { ticketId, admittedAt, ...(gate === undefined ? {} : { gate }) },
  });
}

/** 409: the ticket is cancelled (with the cancellation's trail, when the answer may show it). */
export function ticketCancelled(
  ticketId: string,
  cancelledAt: string,
  cancellation?: TicketStatus["cancellation"],
): ProblemError {
  return new ProblemError(409, {
    type: PROBLEM_TYPES.ticketCancelled,
    title: "Ticket cancelled",
    detail: "This ticket was cancelled and is not valid for entry.",
    extensions: { ticketId, cancelledAt, ...(cancellation === undefined ? {} : { cancellation }) },
  });
}
