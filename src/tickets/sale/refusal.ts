// Why a sale's insert wrote nothing: read after the refusal (one more round
// trip, only then), the first rule the purchase breaks becomes its problem.
import { eventNotFound } from "../../events/problems";
import { slotStarts } from "../../hours/calendar";
import { validationProblem } from "../../http/errors";
import { PROBLEM_TYPES, ProblemError } from "../../http/problem";
import type { Db } from "../../platform/batch";
import type { MuseumNow } from "../../platform/dates";
import type { TicketLine } from "../schemas";
import {
  type DayState,
  generalAvailability,
  generalSalesOpen,
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

/**
 * The places a purchase asks for in each scope its ticket counts in: one for
 * a single ticket; an order's lines for the same day, slot or event count
 * together (an order's line asks for its own place and those of the lines
 * before it in the same scope).
 */
export type Wanted = { day: number; slot: number; event: number };

const ONE_TICKET: Wanted = { day: 1, slot: 1, event: 1 };

/** The problem of a general purchase on the day as it stands, or null when nothing refuses it. */
function generalRefusal(state: DayState, entryTime: string | undefined, now: MuseumNow, wanted: Wanted) {
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
  if (dayRoom !== null && dayRoom < wanted.day) return soldOut(dayRoom, general.entrySlots ? [] : undefined);
  const slot = general.entrySlots?.find((s) => s.entryTime === entryTime);
  if (slot && slot.available < wanted.slot) {
    return soldOut(slot.available, nearestSlotsWithRoom(general.entrySlots!, entryTime!, wanted.slot));
  }
  return null;
}

/**
 * The problem that refuses `line` (`wanted` places of it) on its day as it
 * now stands (`state`): 400 naming the field first, then 404, then 409
 * sold-out. Null when nothing refuses it.
 */
export function refusalOf(state: DayState, line: TicketLine, now: MuseumNow, wanted: Wanted): ProblemError | null {
  if (line.ticketType === "general") return generalRefusal(state, line.entryTime, now, wanted);
  const event = state.events.find((e) => e.eventId === line.eventId);
  // Cancelled, or lost the date, since the sale read it.
  if (!event) return eventNotFound(line.eventId);
  const taken = state.places.events.get(event.eventId) ?? 0;
  if (event.capacity !== null && event.capacity - taken < wanted.event) return soldOut(Math.max(0, event.capacity - taken));
  return null;
}

/**
 * The problem that refused a single ticket's write, read from its day as it
 * now stands (one round trip). Null when nothing refuses it any more (a
 * place was freed meanwhile): the sale may be tried again.
 */
export async function explainRefusal(db: Db, line: TicketLine, now: MuseumNow): Promise<ProblemError | null> {
  return refusalOf(await readDayState(db, line.ticketDate), line, now, ONE_TICKET);
}

/**
 * Why each line of an order was refused, read from the lines' days as they
 * now stand (one round trip per date, in parallel): lines for the same day,
 * slot or event count together, in the order of the lines. Null for a line
 * nothing refuses.
 */
export async function explainLines(db: Db, lines: readonly TicketLine[], now: MuseumNow): Promise<(ProblemError | null)[]> {
  const dates = [...new Set(lines.map((line) => line.ticketDate))];
  const states = new Map((await Promise.all(dates.map((date) => readDayState(db, date)))).map((state) => [state.date, state]));
  const counted = new Map<string, number>();
  const count = (scope: string) => {
    const n = (counted.get(scope) ?? 0) + 1;
    counted.set(scope, n);
    return n;
  };
  return lines.map((line) => {
    const date = line.ticketDate;
    const wanted: Wanted =
      line.ticketType === "general"
        ? { day: count(`${date} day`), slot: line.entryTime === undefined ? 0 : count(`${date} slot ${line.entryTime}`), event: 0 }
        : { day: 0, slot: 0, event: count(`${date} event ${line.eventId}`) };
    return refusalOf(states.get(date)!, line, now, wanted);
  });
}
