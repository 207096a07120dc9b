// Hours changes that can close a day: run through the tickets feature's one entry point.
import type { Db } from "../env";
import type { IsoDate } from "../platform/dates";
import { ticketsFollow } from "../tickets/cancel";
import type { OpeningHours } from "./calendar";
import * as queries from "./queries";

/**
 * Sets a date's exception. A closure of a day with valid general tickets is
 * refused (409) unless `cancelTickets`, which cancels them in the same batch.
 */
export function setHoursException(
  db: Db,
  date: IsoDate,
  hours: OpeningHours | null,
  reason: string | null,
  cancelTickets: boolean,
): Promise<{ replaced: boolean }> {
  const runBatch = hours === null ? ticketsFollow(db, { kind: "day-closed", date, cancelTickets }) : undefined;
  return queries.upsertHoursException(db, date, hours, reason, runBatch);
}

/**
 * Removes a date's exception. When that closes the day (special hours on a
 * day the week keeps closed) and it has valid general tickets, the database
 * refuses it (409); close the day with cancelTickets first.
 */
export function clearHoursException(db: Db, date: IsoDate): Promise<boolean> {
  return queries.removeHoursException(db, date, ticketsFollow(db, { kind: "day-closed", date, cancelTickets: false }));
}
