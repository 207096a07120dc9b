// What a change of the hours asks of the general tickets sold. The tickets
// feature reads the hours (a day's plan), so the hours never import it:
// tickets/follow.ts implements `HoursTickets` and app.ts hands it to the
// hours router.
import type { Sql } from "sql-template-tag";
import type { Batch, BatchPart } from "../platform/batch";
import type { IsoDate } from "../platform/dates";

/**
 * A change of the hours that sold general tickets follow (events run on
 * closed days). Only tickets for `today` (the museum's) or later follow it:
 * admitted and past tickets keep their state.
 */
export type HoursCause = { today: IsoDate } & (
  /**
   * `date` gets a new plan (`plan`: JSON as `dayPlanOn` gives it, NULL for
   * closed), by an exception set or removed.
   */
  | { kind: "day-changed"; date: IsoDate; plan: Sql; cancelTickets: boolean }
  /**
   * The weekly schedule changes: every date it `decides` (an SQL condition
   * of the date) gets the plan `planOn(date)` (JSON, NULL: closed).
   */
  | {
      kind: "week-changed";
      decides: (date: Sql) => Sql;
      planOn: (date: Sql) => Sql;
      cancelTickets: boolean;
    }
);

/** The tickets' part in a change's batch. */
export type HoursTickets = {
  /** Adds the tickets' part of `cause`, before the change's own statements. */
  follow(batch: Batch, cause: HoursCause): BatchPart;
  /**
   * Adds a guard, after the change's own statements: the batch is undone
   * when the day's or a slot's limit of `planOn(date)` (the plan, JSON, the
   * change gives a date from `from`, to `until`, on; NULL where it sets none)
   * is below the places taken (409 capacity-below-sold). `planOn` serves the
   * guard inside the batch and the explanation read after it was undone, so
   * it must not read what the change writes.
   */
  guardLimits(batch: Batch, planOn: (date: Sql) => Sql, from: IsoDate, until?: IsoDate): void;
};
