// Seeds a throw-away local D1 for the benchmark (never the developer's
// .wrangler/state): a checkout's own migrations, a bench admin and a gate
// account, N special events with dates spread over the coming year, and M
// pre-bought tickets. Written through the checkout's own statement builders
// (tools/lib/statements.mjs): events with `insertEvents` and tickets with
// `importTickets`, `ROWS_PER_STATEMENT` at a time, rendered into one SQL file
// run by `wrangler d1 execute DB --local --persist-to <dir> --file`.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { newAccount, newKeyId, newSecret, sha256Hex } from "../tools/lib/accounts.mjs";
import { addDays, weekday } from "../tools/lib/dates.mjs";
import { recordingDb as db, renderStatement, sqlScript, statements } from "../tools/lib/statements.mjs";
import { ROOT, d1Execute, d1Target, runWrangler } from "../tools/lib/wrangler.mjs";

/** Events, or tickets, per statement: keeps each statement under D1's 100 KB. */
const ROWS_PER_STATEMENT = 400;

/** The weekly schedule seeded by migrations/0003 (0 = Sunday): Mon–Fri open. */
const OPEN_WEEKDAYS = new Set([1, 2, 3, 4, 5]);

/** The first day on or after `from` the museum is open (weekly schedule, no exceptions seeded). */
export function nextOpenDay(from) {
  let date = from;
  while (!OPEN_WEEKDAYS.has(weekday(date))) date = addDays(date, 1);
  return date;
}

/** A deterministic, well-formed version-4 UUID for the n-th bench row of a kind. */
export function benchUuid(kind, n) {
  const tail = n.toString(16).padStart(12, "0");
  return `b0000000-0000-4000-8${kind.toString(16).padStart(3, "0")}-${tail}`;
}

/** ticket-{type}-{6}-{5}: unique per n (base 36), as the app's format. */
function confirmationCode(type, n) {
  const s = n.toString(36).padStart(11, "0");
  return `ticket-${type}-${s.slice(0, 6)}-${s.slice(6)}`;
}

function* chunks(rows, size) {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/**
 * The dates of the n-th of `count` events: its first date walks evenly over
 * the 365 days from `today`; every other event repeats a week later (when that
 * is still inside the year), so the table holds ~1.5 dates per event.
 */
function eventDates(n, count, today) {
  const first = Math.floor((n * 365) / count);
  const dates = [addDays(today, first)];
  if (n % 2 === 1 && first + 7 < 365) dates.push(addDays(today, first + 7));
  return dates;
}

/**
 * The days of the capacity pairs (bench/scenarios.mjs), a month and more ahead so no other
 * scenario sells on them: `full` (the seed's `dayTickets` are sold for it), `limited` (the
 * scenario gives it limits), `unlimited`, and `empty`, one never-sold day per round.
 */
export function capacityDays(today, rounds) {
  const full = nextOpenDay(addDays(today, 30));
  const limited = nextOpenDay(addDays(full, 1));
  const unlimited = nextOpenDay(addDays(limited, 1));
  const empty = [nextOpenDay(addDays(unlimited, 1))];
  while (empty.length < rounds) empty.push(nextOpenDay(addDays(empty[empty.length - 1], 1)));
  return { full, limited, unlimited, empty };
}

/**
 * Builds the seed SQL. Returns { sql, eventIds, ticketIds, ticketDate }.
 * `dayTickets` ({ date, count }): general tickets sold for one day besides, imported as rows;
 * the triggers of migrations/0024 count them into `ticket_places` as they would a sale.
 */
function buildSeedSql({ checkout, today, events, tickets, dayTickets, accountName, secret, gate, reseller }) {
  // The checkout's own builders; this repository's where an older checkout has none.
  const b = { ...statements(), ...statements(checkout) };
  const steps = [b.accounts.insertAccount(db, newAccount({ name: accountName, role: "admin", secret }))];
  // The gate scenario's scanner.
  if (gate) steps.push(b.accounts.insertAccount(db, newAccount({ ...gate, role: "gate" })));
  // The OCTO scenarios' reseller: a sales account and its API key.
  if (reseller) {
    steps.push(b.accounts.insertAccount(db, newAccount({ name: reseller.name, role: "sales", secret: reseller.secret })));
    steps.push(b.accounts.insertApiKey(db, { keyId: newKeyId(), accountName: reseller.name, keySha256: sha256Hex(reseller.key) }));
  }

  const newEvents = Array.from({ length: events }, (_, n) => ({
    eventId: benchUuid(1, n),
    name: `Bench event ${String(n).padStart(6, "0")}`,
    location: `Hall ${n % 12}`,
    eventDescription: `A benchmark event, number ${n}.`,
    price: 5 + (n % 50),
    dates: eventDates(n, events, today),
  }));
  const eventIds = newEvents.map((e) => e.eventId);
  for (const chunk of chunks(newEvents, ROWS_PER_STATEMENT)) steps.push(...b.events.insertEvents(db, chunk));

  // Pre-bought general-entry tickets on the next open day, as POST /tickets
  // writes them: the QR scenarios fetch each one's image.
  const ticketDate = nextOpenDay(today);
  const sold = [];
  const ticket = (n, date) => ({
    ticketId: benchUuid(2, n),
    ticketType: "general",
    ticketDate: date,
    confirmationCode: confirmationCode("general", n),
    email: "bench@example.com",
    priceCents: 2500,
    soldBy: accountName,
  });
  for (let n = 0; n < tickets; n += 1) sold.push(ticket(n, ticketDate));
  const ticketIds = sold.map((t) => t.ticketId);
  for (let n = tickets; n < tickets + (dayTickets?.count ?? 0); n += 1) sold.push(ticket(n, dayTickets.date));
  for (const chunk of chunks(sold, ROWS_PER_STATEMENT)) steps.push(b.tickets.importTickets(db, chunk));
  // Fresh statistics so the planner sees the real table sizes (as a long-lived
  // production database would have them).
  return { sql: `${sqlScript(steps)}ANALYZE;\n`, eventIds, ticketIds, ticketDate };
}

/** The migrations directory of a checkout: its wrangler.toml's `migrations_dir` for DB (wrangler's default otherwise). */
export function migrationsDir(checkout) {
  const toml = readFileSync(join(checkout, "wrangler.toml"), "utf8");
  const db = /^\[\[d1_databases\]\]\n((?:(?!\[).*\n?)*)/m.exec(toml)?.[1] ?? "";
  return resolve(checkout, /^\s*migrations_dir\s*=\s*"([^"]+)"/m.exec(db)?.[1] ?? "migrations");
}

/** Whether a checkout's migrations give resellers API keys (OCTO: migrations/0030). */
function hasApiKeys(checkout) {
  return existsSync(join(migrationsDir(checkout), "0030_reseller_bookings.sql"));
}

/**
 * `wrangler d1 migrations apply` for a checkout's local D1 in `persistTo`: the
 * checkout's own migrations (its config, run in it), as its code expects its
 * tables and triggers. Returns `{ args, cwd }`.
 */
export function migrationsCommand(checkout, persistTo) {
  return { args: ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo, "--config", join(checkout, "wrangler.toml")], cwd: checkout };
}

/**
 * Applies a checkout's migrations (this repository's by default) to a fresh
 * `persistTo` directory and loads the seed through its builders. Returns what
 * the scenarios need plus the seed timings.
 */
export function seedDatabase({ checkout = ROOT, persistTo, today, events, tickets, dayTickets, accountName = "bench-admin", withGate = true }) {
  const secret = randomBytes(16).toString("hex");
  // A checkout from before the gate role (migrations/0008) has no gate account.
  const gate = withGate ? { name: "bench-gate", secret: randomBytes(16).toString("hex") } : undefined;
  // A checkout from before OCTO (migrations/0030) has no API keys, and no reseller.
  const reseller = hasApiKeys(checkout)
    ? { name: "bench-reseller", secret: randomBytes(16).toString("hex"), key: newSecret() }
    : undefined;
  const t0 = performance.now();
  const migrate = migrationsCommand(checkout, persistTo);
  runWrangler(migrate.args, { capture: true, cwd: migrate.cwd });
  const t1 = performance.now();
  const seed = buildSeedSql({ checkout, today, events, tickets, dayTickets, accountName, secret, gate, reseller });
  const dir = mkdtempSync(join(tmpdir(), "museum-bench-sql-"));
  try {
    const file = join(dir, "seed.sql");
    writeFileSync(file, seed.sql);
    runWrangler(["d1", "execute", "DB", "--local", "--persist-to", persistTo, "--yes", "--file", file, "--config", join(checkout, "wrangler.toml")], { capture: true, cwd: checkout });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const t2 = performance.now();
  return {
    account: { name: accountName, secret },
    gate,
    reseller,
    eventIds: seed.eventIds,
    ticketIds: seed.ticketIds,
    ticketDate: seed.ticketDate,
    timings: { migrateMs: t1 - t0, seedMs: t2 - t1 },
  };
}

/** A day's general places taken, as the sale's guard reads them (`ticket_places`) and as counted from `tickets`. */
export function dayPlaces(persistTo, date) {
  const b = statements();
  const [places, attendance] = d1Execute(d1Target({ persistTo }), {
    command: sqlScript([b.tickets.selectPlacesTaken(db, date), b.tickets.selectAttendance(db, date)]),
  });
  const counter = places.find((row) => row.scope === "day")?.taken ?? 0;
  const general = attendance.find((row) => row.ticket_type === "general");
  return { counter, tickets: general ? general.sold - general.cancelled : 0 };
}

/** EXPLAIN QUERY PLAN of a statement (a builder's `Sql` or `Step`), through wrangler against `persistTo`. */
export function explainQueryPlan(persistTo, statement) {
  const [rows] = d1Execute(d1Target({ persistTo }), { command: `EXPLAIN QUERY PLAN ${renderStatement(statement)}` });
  // Indent each step under its parent, as the sqlite3 shell prints it.
  const depth = new Map([[0, -1]]);
  return rows.map((row) => {
    const d = (depth.get(row.parent) ?? -1) + 1;
    depth.set(row.id, d);
    return `${"  ".repeat(d)}${row.detail}`;
  });
}
