// The revocation log (ticket_revocations, appended by the trigger of
// migrations/0015), read by position.
import sql from "sql-template-tag";
import { type Db, read, type Step, step } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import type { CancelSource } from "../schemas";
import { soldBy } from "./rows";

/** Why a ticket's code was revoked (migrations/0015: the trigger writes `cancelled`). */
type RevocationReason = "cancelled" | "key-withdrawn";

/** An entry of the revocation log and the ticket it names, as the feeds read it. */
export type RevocationRow = {
  position: number;
  ticket_id: string;
  reason: RevocationReason;
  revoked_at: string;
  ticket_date: string;
  order_id: string | null;
  cancel_source: CancelSource | null;
  cancelled_by: string | null;
  refund_cents: number | null;
  price_cents: number;
};

/** Which entries of the revocation log a feed reads. */
export type RevocationFilter = {
  /** Only entries after this position (0: from the start). */
  after: number;
  /** Only entries of this reason (default: every reason). */
  reason?: RevocationReason;
  /** Only tickets this account sold; null: any (tickets/access.ts). */
  soldBy: string | null;
  /** Only tickets for this date or later (default: any date). */
  from?: IsoDate;
  limit: number;
};

/**
 * The revocation log after a position, in the order it was written (its
 * positions are numbered in the cancelling batch and never reused, so a
 * reader by position never skips nor repeats an entry): each entry with its
 * ticket (one primary-key read), at most `limit`.
 */
export function selectRevocations(db: Db, filter: RevocationFilter): Step<RevocationRow[]> {
  return step(
    db,
    sql`SELECT r.position, r.ticket_id, r.reason, r.revoked_at, t.ticket_date, t.order_id,
               t.cancel_source, t.cancelled_by, t.refund_cents, t.price_cents
          FROM ticket_revocations r JOIN tickets t ON t.ticket_id = r.ticket_id
         WHERE r.position > ${filter.after}
           AND (${filter.reason ?? null} IS NULL OR r.reason = ${filter.reason ?? null})
           AND ${soldBy(filter.soldBy)}
           AND (${filter.from ?? null} IS NULL OR t.ticket_date >= ${filter.from ?? null})
         ORDER BY r.position
         LIMIT ${filter.limit}`,
    read.rows<RevocationRow>(),
  );
}

