import type { Db } from "../env";
import { findSpecialEvent } from "./queries";
import type { SpecialEvent } from "./schemas";

/** An active (not cancelled) event, or null: what other features read of events. */
export function findActiveEvent(db: Db, eventId: string): Promise<SpecialEvent | null> {
  return findSpecialEvent(db, eventId);
}
