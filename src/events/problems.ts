import { ProblemError } from "../http/problem";

/** 404 for an event that does not exist or was deleted (cancelled). */
export function eventNotFound(eventId: string) {
  return new ProblemError(404, { detail: `No special event with id ${eventId}.` });
}
