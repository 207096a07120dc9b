// The hours feature's SQL for other features' writes (tickets check the open day in their insert).

/**
 * An SQL condition, true when the museum is open on `date` (an SQL
 * expression: a parameter such as `"?2"`, or a column). The date's exception
 * decides when it has one, else the weekly schedule: the rule of `hoursOn`,
 * for a write that checks the day in its own statement instead of reading the
 * calendar first (test/hours/queries.test.ts proves the two agree).
 */
export function museumOpenOnSql(date: string): string {
  return `COALESCE(
    (SELECT x.time_open IS NOT NULL FROM museum_hours_exceptions x WHERE x.date = ${date}),
    EXISTS (SELECT 1 FROM museum_weekly_hours w WHERE w.day_of_week = CAST(strftime('%w', ${date}) AS INTEGER)))`;
}

/**
 * An SQL expression: the time (`HH:mm`) the museum closes on `date`, from its
 * exception or else the weekly schedule; NULL on a closed day. For the sales
 * cut-off inside the ticket insert.
 */
export function museumClosingTimeSql(date: string): string {
  return `CASE WHEN EXISTS (SELECT 1 FROM museum_hours_exceptions x WHERE x.date = ${date})
    THEN (SELECT x.time_close FROM museum_hours_exceptions x WHERE x.date = ${date})
    ELSE (SELECT w.time_close FROM museum_weekly_hours w WHERE w.day_of_week = CAST(strftime('%w', ${date}) AS INTEGER))
  END`;
}
