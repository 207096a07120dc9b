#!/usr/bin/env node
// Loads the sample data into D1, idempotently:
//   npm run db:seed:local                      (local D1, plus the local dev accounts)
//   node scripts/seed.mjs --remote --env staging   (the staging database; events only)
//
// It writes through the features' statement builders (tools/lib/statements.mjs),
// never SQL of its own. It reads first what is there (through the builders'
// reads), then writes only what is missing: a read-then-write in this script
// rather than seed-only conflict rules in the builders (the seed runs alone).
// An event is created only when its eventId is unknown (a deleted sample event
// stays deleted), and given dates only while it has none, so a rerun on a
// later day changes nothing; `--redate` moves the sample events (those not
// deleted) into the coming weeks again. Holidays are set only on dates without
// an exception; a sample ticket category only when its id is unknown (one an
// admin changed or retired stays so); a local dev account is written only when
// it differs from .dev.vars.
import { pathToFileURL } from "node:url";
import { ACCOUNT_NAME, newAccount, sha256Hex } from "../tools/lib/accounts.mjs";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { addDays, daysBetween, museumTimeZone, todayIn, weekday } from "../tools/lib/dates.mjs";
import { ensureDevVars, readDevVars } from "../tools/lib/dev-vars.mjs";
import { recordingDb as db, sqlScript, statements } from "../tools/lib/statements.mjs";
import { d1Execute, d1Target } from "../tools/lib/wrangler.mjs";
import exampleEvent from "../src/webhooks/example-event.json" with { type: "json" };

const USAGE = `usage: node scripts/seed.mjs [--local | --remote] [--env <name>] [--today YYYY-MM-DD] [--redate]
  --local       the local D1 of \`wrangler dev\` (default); also upserts the local dev accounts from .dev.vars
  --remote      the deployed D1 of the chosen environment (sample events only, never accounts)
  --env <name>  a wrangler.toml environment, e.g. staging
  --persist-to <dir>  a local state directory other than wrangler's default (with --local)
  --dev-vars <file>   the local accounts' variables from this file instead of .dev.vars (with --local)
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

/**
 * The sample ticket categories beside the migration's `adult` (the default):
 * a child's ticket only with a companion's, a concession and a member's.
 */
const SAMPLE_CATEGORIES = [
  { categoryId: "child", name: "Child", price: 0, accompanied: true, unitType: "CHILD" },
  { categoryId: "concession", name: "Concession", price: 15, accompanied: false, unitType: "STUDENT" },
  { categoryId: "member", name: "Member", price: 0, accompanied: false, unitType: "OTHER" },
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

/**
 * Sample holidays, as dated exceptions to the weekly schedule: the museum is
 * closed on the next Christmas Day and New Year's Day, and closes early on the
 * next Christmas Eve. Dates already set (by an admin, or an earlier seed) are
 * left as they are.
 */
function sampleHolidays(today) {
  const next = (monthDay) => {
    const thisYear = `${today.slice(0, 4)}-${monthDay}`;
    return thisYear >= today ? thisYear : `${Number(today.slice(0, 4)) + 1}-${monthDay}`;
  };
  return [
    { date: next("12-24"), hours: { timeOpen: "09:00", timeClose: "13:00" }, reason: "Christmas Eve: closes early" },
    { date: next("12-25"), hours: null, reason: "Christmas Day" },
    { date: next("01-01"), hours: null, reason: "New Year's Day" },
  ];
}

/**
 * The local dev accounts from .dev.vars (LOCAL_ADMIN_*, LOCAL_SALES_*,
 * LOCAL_KIOSK_* (a second sales account), LOCAL_BOX_OFFICE_*, LOCAL_GATE_*
 * and LOCAL_RESELLER_* (a reseller: a sales account with an OCTO key)), upserted: a changed secret in .dev.vars takes effect on the
 * next seed, and a rerun with the same values writes nothing. The accounts
 * added after the first two are optional, so that an older .dev.vars still
 * seeds (copy their lines from .dev.vars.example). Only ever run against local D1.
 */
function localAccounts(vars) {
  const accounts = [
    { prefix: "LOCAL_ADMIN", role: "admin" },
    { prefix: "LOCAL_SALES", role: "sales" },
    { prefix: "LOCAL_KIOSK", role: "sales", optional: true },
    { prefix: "LOCAL_BOX_OFFICE", role: "box-office", optional: true },
    { prefix: "LOCAL_GATE", role: "gate", optional: true },
    { prefix: "LOCAL_RESELLER", role: "sales", optional: true },
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
    return newAccount({ name, role, secret });
  });
}

/** The id of the local reseller's OCTO key (`npm run account -- list-keys` shows it). */
const LOCAL_KEY_ID = "local";

/**
 * The local reseller's OCTO API key from .dev.vars (LOCAL_OCTO_KEY, for
 * LOCAL_RESELLER_NAME), as the accounts feature's builders take it; none
 * when either is missing (an older .dev.vars).
 */
function localApiKeys(vars) {
  const key = vars.LOCAL_OCTO_KEY;
  const accountName = vars.LOCAL_RESELLER_NAME;
  if (key === undefined || accountName === undefined) return [];
  if (key.length < 16 || !/^[\x21-\x7e]+$/.test(key)) throw new UsageError(".dev.vars: LOCAL_OCTO_KEY must be at least 16 printable characters, without spaces");
  return [{ keyId: LOCAL_KEY_ID, accountName, keySha256: sha256Hex(key) }];
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
      "dev-vars": { type: "string" },
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
  if (remote && args["dev-vars"]) throw new UsageError("--dev-vars is for the local D1 only");
  const target = d1Target({ remote, env: args.env, persistTo: args["persist-to"] });

  const timeZone = await museumTimeZone();
  const today = args.today ?? todayIn(timeZone);
  if (!ISO_DATE.test(today) || Number.isNaN(Date.parse(`${today}T00:00:00Z`))) throw new UsageError("--today must be YYYY-MM-DD");

  const events = placeSampleDates(SAMPLE_EVENTS, today);
  const holidays = sampleHolidays(today);
  // The dev accounts are local-only: a remote seed never writes accounts.
  const vars = remote ? {} : args["dev-vars"] ? readDevVars(args["dev-vars"]) : ensureDevVars();
  const accounts = remote ? [] : localAccounts(vars);
  const apiKeys = remote ? [] : localApiKeys(vars);

  if (!args.quiet) log(`seeding ${target.label}: ${SAMPLE_EVENTS.length} sample events from ${today} (${timeZone})${remote ? "" : " and the local dev accounts"}`);
  const categories = SAMPLE_CATEGORIES;
  const found = readSeeded(target, { events, holidays, categories, accounts, apiKeys });
  const { steps, written } = seedSteps({ events, holidays, categories, accounts, apiKeys }, found, { redate: args.redate === true });
  if (steps.length > 0) d1Execute(target, { sql: sqlScript(steps) });
  const label = { event: "events", date: "event dates", redated: "events redated", holiday: "holidays", category: "ticket categories", account: "accounts", apiKey: "API keys" };
  const summary = Object.entries(written).map(([kind, n]) => `${label[kind]}: ${n}`);
  if (summary.length > 0) log(`seed wrote: ${summary.join(", ")}`);
  else if (!args.quiet) log("seed wrote nothing: the sample data is already there");
}

/**
 * What the database holds of the sample data, read in one `wrangler d1
 * execute --command` through the builders' reads: per event whether its id
 * is known (`eventName`, deleted or not) and the event if active; per holiday
 * whether its date has an exception; per category whether its id is known;
 * per account its active credential; per API key the active account it opens.
 */
function readSeeded(target, { events, holidays, categories = [], accounts, apiKeys = [] }) {
  const b = statements();
  const sql = b.sql.default;
  const reads = [
    ...events.flatMap((e) => [sql`SELECT ${b.events.eventName(sql`${e.eventId}`)} AS name`, b.events.selectActiveEvent(db, e.eventId)]),
    ...holidays.map((h) => b.hours.exceptionExists(db, h.date)),
    ...categories.map((c) => b.categories.selectCategory(db, c.categoryId)),
    ...accounts.map((a) => b.accounts.selectActiveAccountCredential(db, a.name)),
    ...apiKeys.map((k) => b.accounts.selectApiKeyAccount(db, k.keySha256)),
  ];
  const results = d1Execute(target, { command: sqlScript(reads) });
  if (results.length !== reads.length) throw new Error(`expected ${reads.length} results from wrangler, got ${results.length}`);
  const first = (i) => results[i][0] ?? null;
  let i = 0;
  const eventsFound = events.map(() => {
    const known = first(i++)?.name != null;
    const row = first(i++);
    return { known, active: row === null ? null : JSON.parse(row.event) };
  });
  const holidaysFound = holidays.map(() => first(i++) !== null);
  const categoriesFound = categories.map(() => first(i++) !== null);
  const accountsFound = accounts.map(() => first(i++));
  const apiKeysFound = apiKeys.map(() => first(i++));
  return { events: eventsFound, holidays: holidaysFound, categories: categoriesFound, accounts: accountsFound, apiKeys: apiKeysFound };
}

/** The builders' steps that add what `found` lacks, and a count of what they write by kind. */
function seedSteps({ events, holidays, categories = [], accounts, apiKeys = [] }, found, { redate = false } = {}) {
  const b = statements();
  const steps = [];
  const written = {};
  const count = (kind, n = 1) => {
    if (n > 0) written[kind] = (written[kind] ?? 0) + n;
  };
  events.forEach((event, i) => {
    const { known, active } = found.events[i];
    const { eventId, ...input } = event;
    if (!known) {
      steps.push(...b.events.insertEvent(db, eventId, input));
      count("event");
      count("date", event.dates.length);
    } else if (active && (active.dates.length === 0 || (redate && active.dates.join() !== event.dates.join()))) {
      // Only the dates: a sample event an admin has changed keeps its other fields.
      steps.push(...b.events.updateEventFields(db, eventId, { dates: event.dates }));
      count(active.dates.length === 0 ? "date" : "redated", active.dates.length === 0 ? event.dates.length : 1);
    }
  });
  holidays.forEach((h, i) => {
    if (found.holidays[i]) return;
    steps.push(b.hours.upsertException(db, h.date, h.hours, h.reason));
    count("holiday");
  });
  categories.forEach(({ categoryId, ...input }, i) => {
    if (found.categories?.[i]) return;
    steps.push(...b.categories.upsertCategory(db, categoryId, input));
    count("category");
  });
  accounts.forEach((a, i) => {
    const stored = found.accounts[i];
    if (stored && stored.role === a.role && stored.secret_sha256 === a.secretSha256) return;
    steps.push(b.accounts.upsertAccount(db, a));
    count("account");
  });
  apiKeys.forEach((k, i) => {
    const stored = found.apiKeys?.[i];
    if (stored && stored.key_id === k.keyId && stored.name === k.accountName) return;
    steps.push(b.accounts.upsertApiKey(db, k));
    count("apiKey");
  });
  return { steps, written };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await runMain(main, USAGE);
}
