// Why a sale's insert wrote nothing: read after the refusal (one more round
// trip, only then), the first rule the purchase breaks becomes its problem.
import { eventNotFound } from "../../events/problems";
import { slotStarts } from "../../hours/calendar";
import { validationProblem } from "../../http/errors";
import { PROBLEM_TYPES, ProblemError } from "../../http/problem";
import type { Db } from "../../platform/batch";
import type { Purchase } from "../schemas";
import {
  type DayState,
  generalAvailability,
  generalSalesOpen,
  type MuseumNow,
  nearestSlotsWithRoom,
  readDayState,
  slotOpen,
} from "./availability";

/** The 409 of a purchase that would pass a limit: what is left there and, on a timed day, slots to offer instead. */
export function soldOut(available: number, availableEntryTimes?: string[]): ProblemError {
  return new ProblemError(409, {
    type: PROBLEM_TYPES.soldOut,
    title: "Sold out",
    detail:
      available === 0
        ? "No places are left for this purchase; nothing was sold."
        : `Only ${available} place${available === 1 ? " is" : "s are"} left for this purchase; nothing was sold.`,
    extensions: { available, ...(availableEntryTimes ? { availableEntryTimes } : {}) },
  });
}

const fieldProblem = (path: string, message: string) => validationProblem([{ path, message }]);

/** The problem of a general purchase on the day as it stands, or null when nothing refuses it. */
function generalRefusal(state: DayState, entryTime: string | undefined, now: MuseumNow, wanted: number) {
  const { plan, date } = state;
  if (!generalSalesOpen(plan, date, now)) {
    return fieldProblem(
      "ticketDate",
      date === now.today
        ? "General tickets for today are no longer sold: the museum is closed today or has closed for the day."
        : `The museum is closed on ${date}.`,
    );
  }
  const slots = slotStarts(plan);
  if (slots.length === 0) {
    if (entryTime !== undefined) return fieldProblem("entryTime", `${date} has no timed entry; leave entryTime out.`);
  } else {
    if (entryTime === undefined) {
      return fieldProblem("entryTime", `Required: ${date} has timed entry (slots ${slots.join(", ")}).`);
    }
    if (!slots.includes(entryTime)) {
      return fieldProblem("entryTime", `Not an entry slot of ${date}; its slots are ${slots.join(", ")}.`);
    }
    if (!slotOpen(plan, entryTime, date, now)) {
      return fieldProblem("entryTime", `The ${entryTime} slot has ended; choose a later one (see GET /availability).`);
    }
  }
  const general = generalAvailability(state, now);
  const dayRoom = plan.capacity === undefined ? null : Math.max(0, plan.capacity - state.places.day);
  if (dayRoom !== null && dayRoom < wanted) return soldOut(dayRoom, general.entrySlots ? [] : undefined);
  const slot = general.entrySlots?.find((s) => s.entryTime === entryTime);
  if (slot && slot.available < wanted) {
    return soldOut(slot.available, nearestSlotsWithRoom(general.entrySlots!, entryTime!, wanted));
  }
  return null;
}

/**
 * The problem that refused `purchase` (`wanted` places of it), read from the
 * day as it now stands: 400 naming the field first, then 404, then 409
 * sold-out. Null when nothing refuses it any more (a place was freed
 * meanwhile): the sale may be tried again.
 */
export async function explainRefusal(db: Db, purchase: Purchase, now: MuseumNow, wanted = 1): Promise<ProblemError | null> {
  const state = await readDayState(db, purchase.ticketDate);
  if (purchase.ticketType === "general") return generalRefusal(state, purchase.entryTime, now, wanted);
  const event = state.events.find((e) => e.eventId === purchase.eventId);
  // Cancelled, or lost the date, since the sale read it.
  if (!event) return eventNotFound(purchase.eventId);
  const taken = state.places.events.get(event.eventId) ?? 0;
  if (event.capacity !== null && event.capacity - taken < wanted) return soldOut(Math.max(0, event.capacity - taken));
  return null;
}
