// The gates' revocation feed (GET /gate/revocations): the codes an offline
// gate must refuse, from the same log as the cancellations feed.
import type { Db } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { revocationPage } from "../tickets/feed";
import type { RevocationFeed } from "./schemas";

/** The revocations after `since` (a log position; none: from the start) of tickets for `today` or later. One round trip. */
export async function revocationsAfter(db: Db, since: number | undefined, today: IsoDate): Promise<RevocationFeed> {
  const { entries, next } = await revocationPage(db, { soldBy: null, from: today }, since);
  return {
    revocations: entries.map((entry) => ({ ticketId: entry.ticket_id, ticketDate: entry.ticket_date, revokedAt: entry.revoked_at })),
    next,
  };
}
