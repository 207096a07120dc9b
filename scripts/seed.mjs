#!/usr/bin/env node
// Loads the sample data into D1, idempotently:
//   npm run db:seed:local                      (local D1, plus the local dev accounts)
//   node scripts/seed.mjs --remote --env staging   (the staging database; events only)
//
// Every statement is INSERT ... ON CONFLICT DO NOTHING (or an upsert that only
// writes when something differs), so running the seed again changes nothing.
// An event's dates are written only when the event has none yet, so a rerun on
// a later day does not add a second set of dates. `--redate` moves the sample
// events (those not deleted) into the coming weeks again.
import { pathToFileURL } from "node:url";
import { ACCOUNT_NAME, insertAccountSql } from "../tools/lib/accounts.mjs";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { addDays, daysBetween, museumTimeZone, todayIn, weekday } from "../tools/lib/dates.mjs";
import { ensureDevVars } from "../tools/lib/dev-vars.mjs";
import { sqlInteger, sqlString } from "../tools/lib/sql.mjs";
import { d1Execute, d1Target } from "../tools/lib/wrangler.mjs";
import exampleEvent from "../src/webhooks/example-event.json" with { type: "json" };

const USAGE = `usage: node scripts/seed.mjs [--local | --remote] [--env <name>] [--today YYYY-MM-DD] [--redate]
  --local       the local D1 of \`wrangler dev\` (default); also upserts the local dev accounts from .dev.vars
  --remote      the deployed D1 of the chosen environment (sample events only, never accounts)
  --env <name>  a wrangler.toml environment, e.g. staging
  --persist-to <dir>  a local state directory other than wrangler's default (with --local)
  --today       the day the sample dates are counted from (default: today in MUSEUM_TIMEZONE)
  --redate      move the sample events' dates into the coming weeks again
  --quiet       print only what was written (nothing on a rerun)`;

// The ten example events of the Museum API description 1.1.1
// (ListSpecialEventsResponseExample; Redocly's Museum API example, MIT,
// Copyright (c) 2023 Redocly Inc). The dates are the originals; the seed moves
// them into the coming weeks (see placeSampleDates).
export const SAMPLE_EVENTS = [
  {
    eventId: "f3e0e76e-e4a8-466e-ab9c-ae36c15b8e97",
    name: "Sasquatch Ballet",
    location: "Seattle... probably",
    eventDescription:
      "They're big, they're hairy, but they're also graceful. Come learn how the biggest feet can have the lightest touch.",
    dates: ["2023-12-15", "2023-12-22"],
    price: 40,
  },
  {
    eventId: "2f14374a-9c65-4ee5-94b7-fba66d893483",
    name: "Solar Telescope Demonstration",
    location: "Far from the sun.",
    eventDescription: "Look at the sun without going blind!",
    dates: ["2023-09-07", "2023-09-14"],
    price: 50,
  },
  {
    eventId: "6aaa61ba-b2aa-4868-b803-603dbbf7bfdb",
    name: "Cook like a Caveman",
    location: "Fire Pit on East side",
    eventDescription: "Learn to cook on an open flame.",
    dates: ["2023-11-10", "2023-11-17", "2023-11-24"],
    price: 5,
  },
  {
    eventId: "602b75e1-5696-4ab8-8c7a-f9e13580f910",
    name: "Underwater Basket Weaving",
    location: "Rec Center Pool next door.",
    eventDescription: "Learn to weave baskets underwater.",
    dates: ["2023-09-12", "2023-09-15"],
    price: 15,
  },
  {
    eventId: "dad4bce8-f5cb-4078-a211-995864315e39",
    name: "Mermaid Treasure Identification and Analysis",
    location: "Room Sea-12",
    eventDescription:
      "Join us as we review and classify a rare collection of 20 thingamabobs, gadgets, gizmos, whoosits, and whatsits — kindly donated by Ariel.",
    dates: ["2023-09-05", "2023-09-08"],
    price: 30,
  },
  // Also 1.2.1's GetSpecialEventResponseExample (the publishNewEvent webhook's example).
  exampleEvent,
  {
    eventId: "3be6453c-03eb-4357-ae5a-984a0e574a54",
    name: "Pirate Coding Workshop",
    location: "Computer Room",
    eventDescription: "Captain Blackbeard shares his love of the C...language. And possibly Arrrrr (R lang).",
    dates: ["2023-10-29", "2023-10-30", "2023-10-31"],
    price: 45,
  },
  {
    eventId: "9d90d29a-2af5-4206-97d9-9ea9ceadcb78",
    name: "Llama Street Art Through the Ages",
    location: "Auditorium",
    eventDescription: "Llama street art?! Alpaca my bags -- let's go!",
    dates: ["2023-10-29", "2023-10-30", "2023-10-31"],
    price: 45,
  },
  {
    eventId: "a3c7b2c4-b5fb-4ef7-9322-00a919864957",
    name: "The Great Parrot Debate",
    location: "Outdoor Amphitheatre",
    eventDescription: "See leading parrot minds discuss important geopolitical issues.",
    dates: ["2023-11-03", "2023-11-10"],
    price: 35,
  },
  {
    eventId: "b92d46b7-4c5d-422b-87a5-287767e26f29",
    name: "Eat a Bunch of Corn",
    location: "Cafeteria",
    eventDescription: "We accidentally bought too much corn. Please come eat it.",
    dates: ["2023-11-10", "2023-11-17", "2023-11-24"],
    price: 5,
  },
];

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const mondayOf = (date) => addDays(date, -((weekday(date) + 6) % 7));

/**
 * Moves the sample events into the coming weeks, counted from `today`. The
 * calendar weeks the originals start in are closed up (Sep 2023 … Dec 2023
 * becomes weeks 0 … 6), so every event starts within seven weeks. Each event
 * is shifted by whole weeks: it keeps its weekdays and the spacing between its
 * dates, and events that shared dates (Pirate Coding Workshop and Llama Street
 * Art, Cook like a Caveman and Eat a Bunch of Corn) still do.
 */
export function placeSampleDates(events, today) {
  const weeks = [...new Set(events.map((e) => mondayOf(e.dates[0])))].sort();
  return events.map((event) => {
    const first = event.dates[0];
    const earliest = addDays(today, weeks.indexOf(mondayOf(first)) * 7);
    const newFirst = addDays(earliest, (weekday(first) - weekday(earliest) + 7) % 7);
    const shift = daysBetween(first, newFirst);
    return { ...event, dates: event.dates.map((d) => addDays(d, shift)) };
  });
}

/** The SQL that loads the sample events; each statement RETURNs what it wrote. */
export function sampleEventsSql(events, { redate = false } = {}) {
  const ids = events.map((e) => sqlString(e.eventId)).join(", ");
  const statements = [];
  if (redate) {
    statements.push(
      `DELETE FROM special_event_dates WHERE event_id IN (SELECT event_id FROM special_events WHERE event_id IN (${ids}) AND cancelled_at IS NULL) RETURNING 'redated' AS seeded;`,
    );
  }
  for (const e of events) {
    statements.push(
      `INSERT INTO special_events (event_id, name, location, description, price_cents) VALUES (${[
        sqlString(e.eventId),
        sqlString(e.name),
        sqlString(e.location),
        sqlString(e.eventDescription),
        sqlInteger(Math.round(e.price * 100)),
      ].join(", ")}) ON CONFLICT DO NOTHING RETURNING 'event' AS seeded;`,
    );
    // Only for an event that is live and has no dates yet: a rerun on a later
    // day must not give it a second set. event_name is copied from the stored
    // row, as the app does. (SQLite reads the whole SELECT before inserting,
    // because it reads the table being inserted into.)
    const dates = e.dates.map((d) => `(${sqlString(d)})`).join(", ");
    statements.push(
      `INSERT INTO special_event_dates (event_id, event_date, event_name)
  SELECT e.event_id, d.column1, e.name FROM special_events e, (VALUES ${dates}) d
   WHERE e.event_id = ${sqlString(e.eventId)} AND e.cancelled_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM special_event_dates x WHERE x.event_id = e.event_id)
  ON CONFLICT DO NOTHING RETURNING 'date' AS seeded;`,
    );
  }
  return statements;
}

/**
 * Sample holidays, as dated exceptions to the weekly schedule: the museum is
 * closed on the next Christmas Day and New Year's Day, and closes early on the
 * next Christmas Eve. Dates already set (by an admin, or an earlier seed) are
 * left as they are.
 */
export function sampleHolidaySql(today) {
  const next = (monthDay) => {
    const thisYear = `${today.slice(0, 4)}-${monthDay}`;
    return thisYear >= today ? thisYear : `${Number(today.slice(0, 4)) + 1}-${monthDay}`;
  };
  const holidays = [
    { date: next("12-24"), open: "09:00", close: "13:00", reason: "Christmas Eve: closes early" },
    { date: next("12-25"), open: null, close: null, reason: "Christmas Day" },
    { date: next("01-01"), open: null, close: null, reason: "New Year's Day" },
  ];
  return holidays.map(
    (h) => `INSERT INTO museum_hours_exceptions (date, time_open, time_close, reason) VALUES (${[
      sqlString(h.date),
      h.open === null ? "NULL" : sqlString(h.open),
      h.close === null ? "NULL" : sqlString(h.close),
      sqlString(h.reason),
    ].join(", ")}) ON CONFLICT DO NOTHING RETURNING 'holiday' AS seeded;`,
  );
}

/**
 * The local dev accounts from .dev.vars (LOCAL_ADMIN_*, LOCAL_SALES_* and
 * LOCAL_GATE_*), upserted: a changed secret in .dev.vars takes effect on the
 * next seed, and a rerun with the same values writes nothing. The gate account
 * is optional, so that a .dev.vars copied before it existed still seeds (copy
 * its two lines from .dev.vars.example). Only ever run against local D1.
 */
export function localAccountsSql(vars) {
  const accounts = [
    { prefix: "LOCAL_ADMIN", role: "admin" },
    { prefix: "LOCAL_SALES", role: "sales" },
    { prefix: "LOCAL_GATE", role: "gate", optional: true },
  ];
  const present = accounts.filter(
    ({ prefix, optional }) => !optional || vars[`${prefix}_NAME`] !== undefined || vars[`${prefix}_SECRET`] !== undefined,
  );
  return present.map(({ prefix, role }) => {
    const name = vars[`${prefix}_NAME`];
    const secret = vars[`${prefix}_SECRET`];
    if (!name || !ACCOUNT_NAME.test(name)) {
      throw new UsageError(`.dev.vars: ${prefix}_NAME must be 1–64 characters of a-z 0-9 . _ -`);
    }
    if (!secret || secret.length < 16 || secret.includes(":")) {
      throw new UsageError(`.dev.vars: ${prefix}_SECRET must be at least 16 characters, without ':'`);
    }
    return insertAccountSql({ name, role, secret, onConflict: "update", returning: "'account' AS seeded" });
  });
}

async function main(argv) {
  const { values: args } = parseCommandLine(
    argv,
    {
      local: { type: "boolean" },
      remote: { type: "boolean" },
      redate: { type: "boolean" },
      quiet: { type: "boolean" },
      help: { type: "boolean" },
      env: { type: "string" },
      "persist-to": { type: "string" },
      today: { type: "string" },
    },
    { allowPositionals: false },
  );
  if (args.help) {
    log(USAGE);
    return;
  }
  if (args.local && args.remote) throw new UsageError("choose --local or --remote");
  const remote = args.remote === true;
  if (remote && args["persist-to"]) throw new UsageError("--persist-to is for the local D1 only");
  const target = d1Target({ remote, env: args.env, persistTo: args["persist-to"] });

  const timeZone = await museumTimeZone();
  const today = args.today ?? todayIn(timeZone);
  if (!ISO_DATE.test(today) || Number.isNaN(Date.parse(`${today}T00:00:00Z`))) throw new UsageError("--today must be YYYY-MM-DD");

  const events = placeSampleDates(SAMPLE_EVENTS, today);
  const statements = [
    ...sampleEventsSql(events, { redate: args.redate === true }),
    ...sampleHolidaySql(today),
    // The dev accounts are local-only: a remote seed never writes accounts.
    ...(remote ? [] : localAccountsSql(ensureDevVars())),
  ];

  if (!args.quiet) log(`seeding ${target.label}: ${SAMPLE_EVENTS.length} sample events from ${today} (${timeZone})${remote ? "" : " and the local dev accounts"}`);
  const rows = d1Execute(target, { sql: `${statements.join("\n")}\n` }).flat();
  const written = {};
  for (const row of rows) {
    if (row && typeof row.seeded === "string") written[row.seeded] = (written[row.seeded] ?? 0) + 1;
  }
  const label = { redated: "old dates removed", event: "events", date: "event dates", holiday: "holidays", account: "accounts" };
  const summary = Object.entries(written).map(([kind, n]) => `${label[kind] ?? kind}: ${n}`);
  // A remote --file run is an import: wrangler reports totals, not rows.
  const remoteTotals = rows.find((row) => row && "Rows written" in row);
  if (remoteTotals) log(`seed done: ${remoteTotals["Rows written"]} rows written`);
  else if (summary.length > 0) log(`seed wrote: ${summary.join(", ")}`);
  else if (!args.quiet) log(remote ? "seed done" : "seed wrote nothing: the sample data is already there");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await runMain(main, USAGE);
}
