// Why a sale's write was refused: read after the refusal (one more round
// trip, only then). Each line's conditions (conditions.ts) are evaluated one
// by one; the first that fails becomes the line's problem, with the figures
// of its day (what is left, slots to offer) read in the same batch.
import { eventNotFound } from "../events/problems";
import { validationProblem } from "../http/errors";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import type { Batch } from "../platform/batch";
import type { MuseumNow } from "../platform/dates";
import type { TicketLine } from "../tickets/schemas";
import { linesAhead, requestLineColumns, requestLines } from "../tickets/statements/lines";
import { addDayStateRead, type DayState, generalAvailability, nearestSlotsWithRoom } from "./availability";
import { type ConditionName, CONDITIONS, conditionsOf, type PlacesAhead, selectConditions } from "./conditions";

/** The 409 of a purchase that would pass a limit: what is left there and, on a timed day, slots to offer instead. */
function soldOut(available: number, availableEntryTimes?: string[]): ProblemError {
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

/** The problem of `line` whose condition `failed` does not hold, told with its day as it now stands. */
function problemOf(failed: ConditionName, line: TicketLine, state: DayState, now: MuseumNow, ahead: PlacesAhead): ProblemError {
  const { date, plan } = state;
  const slots = state.slots.map((slot) => slot.entryTime);
  switch (failed) {
    case "category-on-sale":
      return fieldProblem("category", `No ticket category '${line.category}' is on sale (unknown or retired); see GET /ticket-categories.`);
    case "accompanied-line-has-companion":
      return new ProblemError(400, {
        type: PROBLEM_TYPES.accompanimentRequired,
        title: "Accompaniment required",
        detail: `A '${line.category}' ticket is sold only in an order with a companion's: a ticket of a category that is not accompanied, for the same date, ${line.ticketType === "event" ? "event" : "general entry"} and entry time.`,
      });
    case "day-on-sale":
      return fieldProblem(
        "ticketDate",
        date === now.today
          ? "General tickets for today are no longer sold: the museum is closed today or has closed for the day."
          : `The museum is closed on ${date}.`,
      );
    case "start-time-fits-day": {
      const opening = plan?.timeOpen ?? "";
      return fieldProblem("startTime", `${date} has no entry slots: its one start is its opening, ${opening}.`);
    }
    case "entry-time-fits-day":
      return line.ticketType === "general" && line.entryTime === undefined
        ? fieldProblem("entryTime", `Required: ${date} has timed entry (slots ${slots.join(", ")}).`)
        : fieldProblem("entryTime", `${date} has no timed entry; leave entryTime out.`);
    case "entry-time-is-slot":
      return fieldProblem("entryTime", `Not an entry slot of ${date}; its slots are ${slots.join(", ")}.`);
    case "slot-on-sale": {
      const entryTime = line.ticketType === "general" ? (line.entryTime ?? line.startTime) : undefined;
      return fieldProblem("entryTime", `The ${entryTime} slot has ended; choose a later one (see GET /availability).`);
    }
    case "day-room":
      // On a timed day only the daily limit is short: no slot to offer instead.
      return soldOut(state.general.room ?? 0, plan?.entrySlotMinutes === undefined ? undefined : []);
    case "slot-room": {
      const entryTime = line.ticketType === "general" ? (line.entryTime ?? line.startTime)! : "";
      const slotsNow = generalAvailability(state).entrySlots ?? [];
      const available = slotsNow.find((slot) => slot.entryTime === entryTime)?.available ?? 0;
      return soldOut(available, nearestSlotsWithRoom(slotsNow, entryTime, ahead.slot + 1));
    }
    case "event-on-sale":
      // Only a late confirmation meets it: a new sale's date was checked against the clock first.
      return fieldProblem("ticketDate", `Tickets for ${date} are no longer sold: the day is over.`);
    case "event-on-date":
      // Cancelled, or lost the date, since the sale read it.
      return eventNotFound(line.ticketType === "event" ? line.eventId : "");
    case "event-room": {
      const event = state.events.find((e) => line.ticketType === "event" && e.eventId === line.eventId);
      return soldOut(event?.room ?? 0);
    }
  }
}

/** The figures read with each line's conditions: the places the lines ahead of it take (tickets' `linesAhead`). */
const AHEAD = { day: "ahead day", slot: "ahead slot", event: "ahead event" } as const;

/**
 * Explains a refused write of `lines` (one round trip): each line's
 * problem (null: nothing refuses it now), from its conditions as they now
 * stand, counting the lines ahead of it (nothing of the request was
 * written), and the figures of the lines' days. `batch` may hold the
 * caller's own reads, which run with these.
 */
export async function explainRefusal(
  lines: readonly TicketLine[],
  now: MuseumNow,
  batch: Batch,
): Promise<(ProblemError | null)[]> {
  const all = requestLines(lines);
  const evaluated = lines.map((line, i) => {
    const columns = requestLineColumns(line, i);
    const ahead = linesAhead(all, columns);
    const figures = { [AHEAD.day]: ahead.day, [AHEAD.slot]: ahead.slot, [AHEAD.event]: ahead.event };
    return batch.add(selectConditions(batch.db, conditionsOf({ line, columns, lines: all }, now, ahead), figures));
  });
  const states = new Map([...new Set(lines.map((line) => line.ticketDate))].map((date) => [date, addDayStateRead(batch, date, now)]));
  await batch.run();
  return lines.map((line, i) => {
    const read = evaluated[i]!.value;
    const failed = CONDITIONS[line.ticketType].find((name) => read[name] !== 1);
    const ahead = { day: read[AHEAD.day]!, slot: read[AHEAD.slot]!, event: read[AHEAD.event]! };
    return failed === undefined ? null : problemOf(failed, line, states.get(line.ticketDate)!(), now, ahead);
  });
}

/** How a request addresses its lines: as the body itself (`POST /tickets`), or as `tickets[i]` (`POST /orders`). */
export type LineAddressing = "body" | "tickets";

/**
 * The problem of a request whose lines are refused (`problems[i]`: line i's,
 * or null), or null when none is. One line in the body: its own problem. An
 * order: every invalid field at once, under `tickets[i].`; else the first
 * other 400 (an accompanied line alone); else the first 404; else the first
 * 409; each names the lowest refused line of its kind in `line`.
 */
export function requestRefusal(problems: readonly (ProblemError | null)[], addressing: LineAddressing): ProblemError | null {
  if (addressing === "body") return problems[0] ?? null;
  const refused = problems.flatMap((problem, line) => (problem ? [{ problem, line }] : []));
  const invalid = refused.filter(({ problem }) => problem.status === 400 && problem.problem.errors !== undefined);
  if (invalid.length > 0) {
    const errors = invalid.flatMap(({ problem, line }) =>
      (problem.problem.errors ?? []).map((error) => ({ ...error, path: `tickets[${line}].${error.path}` })),
    );
    return validationProblem(errors, invalid[0]!.line);
  }
  const first =
    refused.find(({ problem }) => problem.status === 400) ?? refused.find(({ problem }) => problem.status === 404) ?? refused[0];
  if (!first) return null;
  const { problem, line } = first;
  return new ProblemError(problem.status as 400 | 404 | 409, {
    ...problem.problem,
    detail: `Line ${line}: ${problem.problem.detail}`,
    extensions: { ...problem.problem.extensions, line },
  });
}
