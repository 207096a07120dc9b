// Reads that must see a write made a moment ago (docs/orders.md,
// "Read your writes"): a kiosk fetches a ticket's image, or a shop its order,
// as soon as it is sold, and its read may go to a replica that is behind.
import type { Db } from "./batch";

/** A request's D1 session, and the primary for a read that must not miss a recent write. */
export type Sessions = { db: Db; primaryDb: () => Db };

/**
 * Reads on the request's session; when that finds nothing, once more on the
 * primary before the caller answers 404. A hit costs nothing extra; a miss
 * one more round trip.
 */
export async function readFresh<T>(sessions: Sessions, read: (db: Db) => Promise<T | null>): Promise<T | null> {
  return (await read(sessions.db)) ?? read(sessions.primaryDb());
}
