// The rules an offline gate applies in JavaScript (museum-api-client/gate)
// and the service in SQL, held together over generated inputs (fast-check):
// the judgement of a scan with its order of checks, the museum's clock, and
// the entry slots a gate learns of a day. A real D1 with the real migrations;
// docs/admission.md, "One order of checks".
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { checkTicketCode, type GateConfig, type GateKeySet, museumNow } from "museum-api-client/gate";
import sql from "sql-template-tag";
import { beforeAll, describe, expect, it } from "vitest";
import { gateConfigFrom } from "../../src/admission/gate";
import { boundMoment, scanMomentAt } from "../../src/admission/judging";
import { type DayPlan, timeOf } from "../../src/hours/calendar";
import { dayPlanOn, isSlotStart, upsertException } from "../../src/hours/statements";
import { Batch, read, step } from "../../src/platform/batch";
import { addDays, museumNowIn } from "../../src/platform/dates";
import { type AdmissionJudgement, selectAdmissionJudgement } from "../../src/tickets/statements/admission";
import { ACCOUNTS, api, expectProblem } from "../support/helpers";
import { useClock } from "../support/clock";
import { codeFor } from "../support/ticket-codes";
import { buy, createEvent, type PurchaseResponse } from "../tickets/fixtures";

const ZONES = Intl.supportedValuesOf("timeZone");
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Scans happen now: 1990 to 2100 (before 1973 a few zones were seconds off a whole minute).
const FIRST = Date.UTC(1990, 0, 1);
const LAST = Date.UTC(2100, 0, 1);

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `ms` in minutes, as ICU names it (`GMT-05:00`): read apart from both clocks under test. */
function offsetMinutes(timeZone: string, ms: number): number {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    offsetFormats.set(timeZone, format);
  }
  const name = format.formatToParts(ms).find((part) => part.type === "timeZoneName")!.value;
  const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!match) throw new Error(`unexpected offset ${name} of ${timeZone}`);
  return match[1] === undefined ? 0 : (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

const transitionsFound = new Map<string, number[]>();

/** The instants of `year` at which `timeZone`'s offset changes (sampled weekly, then found to the millisecond). */
function transitionsOf(timeZone: string, year: number): number[] {
  const key = `${timeZone} ${year}`;
  const known = transitionsFound.get(key);
  if (known) return known;
  const found: number[] = [];
  const end = Date.UTC(year + 1, 0, 1);
  for (let from = Date.UTC(year, 0, 1); from < end; from += 7 * DAY) {
    let [low, high] = [from, Math.min(from + 7 * DAY, end)];
    if (offsetMinutes(timeZone, low) === offsetMinutes(timeZone, high)) continue;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetMinutes(timeZone, middle) === offsetMinutes(timeZone, low)) low = middle;
      else high = middle;
    }
    found.push(high);
  }
  transitionsFound.set(key, found);
  return found;
}

/** An instant in `timeZone`: anywhere from 1990 to 2100, or within two hours of a change of its offset (the minutes around it most often). */
function instantIn(timeZone: string): fc.Arbitrary<number> {
  const anywhere = fc.integer({ min: FIRST, max: LAST - 1 });
  const delta = fc.oneof(fc.constantFrom(-MINUTE - 1, -MINUTE, -1, 0, 1, MINUTE - 1, MINUTE), fc.integer({ min: -2 * HOUR, max: 2 * HOUR }));
  const nearChange = fc.integer({ min: 1990, max: 2099 }).chain((year) => {
    const transitions = transitionsOf(timeZone, year);
    return transitions.length === 0 ? anywhere : fc.tuple(fc.constantFrom(...transitions), delta).map(([at, by]) => at + by);
  });
  return fc.oneof(anywhere, nearChange);
}

describe("the museum's clock: the Worker's (platform/dates.ts) and an offline gate's (gate.js)", () => {
  it("finds the changes of offset it tests around", () => {
    expect(ZONES.length).toBeGreaterThan(300);
    expect(transitionsOf("America/New_York", 2031).map((ms) => new Date(ms).toISOString())).toEqual([
      "2031-03-09T07:00:00.000Z",
      "2031-11-02T06:00:00.000Z",
    ]);
  });

  it("reads the same date and time at every instant, in every zone, around every change of offset", () => {
    // Instants near a change of the first zone's offset, then moments close to them (the same minute, the next,
    // the same hour), each read in every zone in turn: what the Worker remembers of one reading must answer no
    // other zone's and no other minute's.
    const close = fc.oneof(fc.integer({ min: -2 * MINUTE, max: 2 * MINUTE }), fc.integer({ min: -HOUR, max: HOUR }));
    const readings = fc
      .uniqueArray(fc.constantFrom(...ZONES), { minLength: 1, maxLength: 3 })
      .chain((zones) => fc.tuple(fc.constant(zones), fc.array(instantIn(zones[0]!), { minLength: 1, maxLength: 3 }), fc.array(close, { maxLength: 4 })))
      .map(([zones, instants, again]) =>
        [...instants, ...again.map((by, i) => instants[i % instants.length]! + by)].flatMap((ms) => zones.map((timeZone) => ({ timeZone, ms }))),
      );
    fc.assert(
      fc.property(readings, (reads) => {
        for (const { timeZone, ms } of reads) {
          const at = new Date(ms);
          const gate = museumNow(timeZone, at);
          expect({ timeZone, at: at.toISOString(), ...museumNowIn(timeZone, at) }).toEqual({
            timeZone,
            at: at.toISOString(),
            ...gate,
            utcOffsetMinutes: offsetMinutes(timeZone, ms),
          });
          // The date and time are the instant's minute moved by the zone's offset.
          expect(Date.parse(`${gate.today}T${gate.time}:00Z`) - offsetMinutes(timeZone, ms) * MINUTE).toBe(Math.floor(ms / MINUTE) * MINUTE);
        }
      }),
      { seed: 39, numRuns: 300 },
    );
  });
});

/**
 * The checks of admission in their one order (docs/admission.md), the table
 * both languages are held to: what the service's SQL judges
 * (`admissionJudgement`) and what an offline gate's `checkTicketCode`
 * answers for it (`null`: the gate cannot know it: it sees no admissions).
 * The first check that holds decides. A code that is not genuine (forged, a
 * held ticket's, an earlier kind's) is refused before any of these.
 */
const CHECKS: { service: AdmissionJudgement; gate: string | null; when: string }[] = [
  { service: "ticket-cancelled", gate: "revoked", when: "cancelled at or before the scan (the gate synced the revocation)" },
  { service: "already-admitted", gate: null, when: "admitted before" },
  { service: "not-valid-today", gate: "not-valid-today", when: "for another day than the scan's, in the museum's time zone" },
  { service: "too-late", gate: "too-late", when: "a general ticket, at or after its day's closing time" },
  { service: "too-early", gate: "too-early", when: "a timed ticket on a day with timed entry, before its entry time less the early minutes" },
  { service: "cancelled-after-entry", gate: "admitted", when: "cancelled after the scan (the gate could not know)" },
  { service: "admittable", gate: "admitted", when: "none of the above" },
];
const orderOf = (judgement: AdmissionJudgement) => CHECKS.findIndex((check) => check.service === judgement);

/** A minute of the day, clamped into it. */
const clamp = (minutes: number, lowest = 0) => Math.min(Math.max(minutes, lowest), 24 * 60 - 1);

/** Minutes from a boundary: often exactly on it or one off, else within hours (more often after it). */
const fromBoundary = fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -180, max: 600 }));

/** A day's plan, its closing time around the scan's time: closed, open, or with timed entry (a plan the API accepts). */
const dayPlan = fc.record({
  kind: fc.constantFrom("closed", "open", "timed", "timed"),
  closeFromScan: fromBoundary,
  length: fc.integer({ min: 5, max: 12 * 60 }),
  slotMinutes: fc.integer({ min: 5, max: 240 }),
});
type DayPlanCase = typeof dayPlan extends fc.Arbitrary<infer T> ? T : never;

function planAt(scanMinutes: number, spec: DayPlanCase): DayPlan | null {
  if (spec.kind === "closed") return null;
  const close = clamp(scanMinutes + spec.closeFromScan, 5);
  const open = Math.max(0, close - spec.length);
  const hours = { timeOpen: timeOf(open), timeClose: timeOf(close) };
  return spec.kind === "open" ? hours : { ...hours, entrySlotMinutes: Math.min(spec.slotMinutes, close - open), slotCapacity: 10 };
}

/**
 * A scan's facts, each drawn from its cases: the ticket (general, timed,
 * event), its day against the scan's, the plans of both days, the scan's
 * moment (any zone, 2020 to 2040) and the early minutes, a cancellation
 * (never, before, at or after the scan), an admission before it.
 */
const scanFacts = fc.record({
  timeZone: fc.constantFrom(...ZONES),
  at: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) }),
  earlyMinutes: fc.oneof(fc.constantFrom(0, 15), fc.integer({ min: 0, max: 240 })),
  ticket: fc.constantFrom("general", "timed", "timed", "event"),
  dayFromScan: fc.constantFrom(0, 0, 0, 0, -1, 1),
  // A timed ticket's entry time against the latest admitted at the scan (its time plus the early minutes).
  entryFromLatest: fromBoundary,
  planOfTicketDay: dayPlan,
  planOfScanDay: dayPlan,
  cancelled: fc.constantFrom("never", "never", "never", "never", "before the scan", "at the scan", "after the scan"),
  cancelledBy: fc.integer({ min: 1, max: 3 * DAY }),
  admitted: fc.boolean(),
});
type ScanFacts = typeof scanFacts extends fc.Arbitrary<infer T> ? T : never;

describe("the admission judgement: the service's SQL and an offline gate's checkTicketCode", () => {
  let keys: GateKeySet;
  let eventId: string;
  beforeAll(async () => {
    keys = (await (await api("/v1.1/gate/keys", { as: "gate" })).json()) as GateKeySet;
    eventId = await createEvent(["2031-03-04"]);
  });

  /** A ticket row as the facts say (a sale's checks do not apply: old data included). */
  function insertTicket(facts: ScanFacts, ticket: { ticketId: string; ticketDate: string; entryTime: string | null; admittedAt: string | null; cancelledAt: string | null }) {
    const event = facts.ticket === "event" ? eventId : null;
    return step(
      env.DB,
      sql`INSERT INTO tickets (ticket_id, ticket_type, ticket_date, event_id, entry_time, category, confirmation_code, buyer_email, price_cents, sold_by, admitted_at, cancelled_at)
          VALUES (${ticket.ticketId}, ${event ? "event" : "general"}, ${ticket.ticketDate}, ${event}, ${ticket.entryTime}, 'adult', ${crypto.randomUUID()},
                  'visitor@example.com', 0, ${ACCOUNTS.sales.name}, ${ticket.admittedAt}, ${ticket.cancelledAt})`,
      read.nothing,
    );
  }

  // What the previous run wrote, removed in the next run's batch (and at the end).
  let written = { tickets: [] as string[], dates: [] as string[] };
  const removeWritten = (batch: Batch) => {
    batch.add(step(env.DB, sql`DELETE FROM tickets WHERE ticket_id IN (SELECT value FROM json_each(${JSON.stringify(written.tickets)}))`, read.nothing));
    batch.add(step(env.DB, sql`DELETE FROM museum_hours_exceptions WHERE date IN (SELECT value FROM json_each(${JSON.stringify(written.dates)}))`, read.nothing));
  };

  it("gives one answer for every scan, in the table's order of checks, online and at an offline gate", async () => {
    const seen = new Map<AdmissionJudgement, number>();
    const judge = async (facts: ScanFacts) => {
      const at = new Date(facts.at);
      const moment = scanMomentAt(at, facts.timeZone, facts.earlyMinutes);
      const scanMinutes = Number(moment.time.slice(0, 2)) * 60 + Number(moment.time.slice(3, 5));
      const ticketDate = addDays(moment.today, facts.dayFromScan);
      const entryTime = facts.ticket === "timed" ? timeOf(clamp(scanMinutes + facts.earlyMinutes + facts.entryFromLatest)) : null;
      const cancelledAt = {
        never: null,
        "before the scan": new Date(facts.at - facts.cancelledBy).toISOString(),
        "at the scan": at.toISOString(),
        "after the scan": new Date(facts.at + facts.cancelledBy).toISOString(),
      }[facts.cancelled];
      const plans = new Map([
        [moment.today, planAt(scanMinutes, facts.planOfScanDay)],
        [ticketDate, planAt(scanMinutes, facts.planOfTicketDay)],
      ]);
      // The ticket as the gate knows it (never admitted), and the same ticket admitted a minute before the scan.
      const ticket = { ticketId: crypto.randomUUID(), ticketDate, entryTime, admittedAt: null, cancelledAt };
      const admitted = { ...ticket, ticketId: crypto.randomUUID(), admittedAt: new Date(facts.at - MINUTE).toISOString() };

      const batch = new Batch(env.DB);
      removeWritten(batch);
      written = { tickets: [ticket.ticketId, admitted.ticketId], dates: [...plans.keys()] };
      for (const [date, plan] of plans) batch.add(upsertException(env.DB, date, plan, null));
      batch.add(insertTicket(facts, ticket));
      batch.add(insertTicket(facts, admitted));
      const service = batch.add(selectAdmissionJudgement(env.DB, ticket.ticketId, boundMoment(moment), sql`0`));
      const serviceAdmitted = batch.add(selectAdmissionJudgement(env.DB, admitted.ticketId, boundMoment(moment), sql`0`));
      await batch.run();

      // What the gate synced that day: the keys, the coming days' rules, the revocations until the scan.
      const config = await gateConfigFrom(env.DB, moment.today, { timeZone: facts.timeZone, earlyMinutes: facts.earlyMinutes });
      const revoked = cancelledAt !== null && cancelledAt <= at.toISOString() ? [ticket.ticketId] : [];
      const code = await codeFor({
        ticketId: ticket.ticketId,
        ticketType: facts.ticket === "event" ? "event" : "general",
        ticketDate,
        category: "adult",
        ...(facts.ticket === "event" ? { eventId } : {}),
        ...(entryTime === null ? {} : { entryTime }),
      });
      const gate = await checkTicketCode({ code, keys, config, revoked, now: at });
      return { moment, ticketDate, entryTime, plans: Object.fromEntries(plans), service: service.value!, admitted: serviceAdmitted.value!, gate };
    };

    try {
      await fc.assert(
        fc.asyncProperty(scanFacts, async (facts) => {
          const judged = await judge(facts);
          const { judgement } = judged.service;
          expect(orderOf(judgement), JSON.stringify(judged)).toBeGreaterThanOrEqual(0);
          expect(judged.gate.outcome, JSON.stringify(judged)).toBe(CHECKS[orderOf(judgement)]!.gate);
          if (judged.gate.outcome === "too-late") expect(judged.gate.timeClose).toBe(judged.service.time_close);
          // Admitted before: the checks ahead of it in the table still decide, else it does.
          const byAdmission = orderOf(judgement) < orderOf("already-admitted") ? judgement : "already-admitted";
          expect(judged.admitted.judgement, JSON.stringify(judged)).toBe(byAdmission);
          for (const answer of [judgement, judged.admitted.judgement]) seen.set(answer, (seen.get(answer) ?? 0) + 1);
        }),
        { seed: 3910, numRuns: 200 },
      );
    } finally {
      const batch = new Batch(env.DB);
      removeWritten(batch);
      await batch.run();
    }
    // The generated scans reached every row of the table.
    expect([...seen.keys()].sort()).toEqual(CHECKS.map((check) => check.service).sort());
  }, 60_000);
});

describe("the entry slots a gate learns of a day", () => {
  const date = "2039-06-15";
  const minutesOfDay = sql`WITH RECURSIVE minute (m) AS (SELECT 0 UNION ALL SELECT m + 1 FROM minute WHERE m < 24 * 60 - 1)`;
  const entryTime = sql`printf('%02d:%02d', m / 60, m % 60)`;

  it("are the slot starts a sale accepts, and a day has them exactly when it has timed entry (what gate.js's too-early reads)", async () => {
    // Any plan: the API refuses what is not a plan (no slot fits, the day ends before it opens, 400).
    const plans = fc.record({
      open: fc.integer({ min: 0, max: 20 * 60 }),
      length: fc.oneof({ weight: 1, arbitrary: fc.integer({ min: -30, max: 30 }) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 16 * 60 }) }),
      entrySlotMinutes: fc.option(fc.oneof(fc.constantFrom(5, 60, 240), fc.integer({ min: 1, max: 300 })), { nil: undefined }),
    });
    const accepted = { timed: 0, untimed: 0 };
    try {
      await fc.assert(
        fc.asyncProperty(plans, async ({ open, length, entrySlotMinutes }) => {
          const plan = {
            closed: false,
            timeOpen: timeOf(open),
            timeClose: timeOf(clamp(open + length)),
            ...(entrySlotMinutes === undefined ? {} : { entrySlotMinutes, slotCapacity: 10 }),
          };
          const put = await api(`/v1.1/museum-hours/exceptions/${date}`, { method: "PUT", json: plan });
          if (put.status === 400) return;
          expect(put.status, await put.clone().text()).toBeLessThan(300);
          accepted[entrySlotMinutes === undefined ? "untimed" : "timed"] += 1;

          useClock(`${date}T16:00:00Z`);
          const config = (await (await api("/v1.1/gate/config", { as: "gate" })).json()) as GateConfig;
          const day = config.days.find((d) => d.date === date)!;
          const slotStarts = sql`${minutesOfDay} SELECT ${entryTime} AS start FROM minute WHERE ${isSlotStart(dayPlanOn(sql`${date}`), entryTime)} ORDER BY m`;
          const sold = await env.DB.prepare(slotStarts.sql).bind(...slotStarts.values).all<{ start: string }>();
          expect(day.entrySlots !== undefined, JSON.stringify(plan)).toBe(entrySlotMinutes !== undefined);
          expect(day.entrySlots ?? [], JSON.stringify(plan)).toEqual(sold.results.map((row) => row.start));
        }),
        { seed: 3903, numRuns: 60 },
      );
    } finally {
      await env.DB.prepare("DELETE FROM museum_hours_exceptions WHERE date = ?1").bind(date).run();
    }
    // The API accepted enough plans of both kinds for the property to say something.
    expect(accepted.timed).toBeGreaterThanOrEqual(15);
    expect(accepted.untimed).toBeGreaterThanOrEqual(5);
  }, 60_000);
});

describe("the day's plan and the one order, online and at an offline gate", () => {
  const scan = (code: string) => api("/v1.1/admissions", { method: "POST", as: "gate", json: { code } });
  async function offlineGate(code: string, at: string) {
    const keys = (await (await api("/v1.1/gate/keys", { as: "gate" })).json()) as GateKeySet;
    const config = (await (await api("/v1.1/gate/config", { as: "gate" })).json()) as GateConfig;
    return (await checkTicketCode({ code, keys, config, now: new Date(at) })).outcome;
  }
  /** Timed tickets sold for `entryTime` of `day`, a timed day 09:00–18:00 by hourly slots; their codes. */
  async function timedTickets(day: string, entryTime: string, count: number): Promise<string[]> {
    const timed = { closed: false, timeOpen: "09:00", timeClose: "18:00", entrySlotMinutes: 60, slotCapacity: 10 };
    expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: timed })).status).toBe(201);
    const codes = [];
    for (let i = 0; i < count; i++) {
      const res = await buy({ ticketType: "general", ticketDate: day, entryTime, email: "visitor@example.com" });
      expect(res.status).toBe(201);
      const { ticketId } = (await res.json()) as PurchaseResponse;
      codes.push(await codeFor({ ticketId, ticketType: "general", ticketDate: day, category: "adult", entryTime }));
    }
    return codes;
  }

  it("admits a timed ticket at any time of its day once the day's timed entry is turned off (contract), until closing", async () => {
    const day = "2031-05-06";
    useClock("2031-05-06T12:00:00Z"); // 08:00 in New York
    const [first, second] = (await timedTickets(day, "15:00", 2)) as [string, string];
    const untimed = { closed: false, timeOpen: "09:00", timeClose: "18:00" };
    expect((await api(`/v1.1/museum-hours/exceptions/${day}`, { method: "PUT", json: untimed })).status).toBe(200);

    const morning = "2031-05-06T14:00:00Z"; // 10:00, five hours before its entry time
    useClock(morning);
    expect(await offlineGate(first, morning)).toBe("admitted");
    expect((await scan(first)).status).toBe(201);
    const evening = "2031-05-06T22:00:00Z"; // 18:00: closed
    useClock(evening);
    expect(await offlineGate(second, evening)).toBe("too-late");
    expect((await expectProblem(await scan(second), 422)).type).toBe("/problems/too-late");
  });

  it("answers too-late, not too-early, after closing, even for an entry time after it (a ticket sold before closings were guarded)", async () => {
    const day = "2031-05-07";
    useClock("2031-05-07T12:00:00Z");
    const [code] = (await timedTickets(day, "17:00", 1)) as [string];
    // The day closed at 16:00 without the guard a change now passes (data from before it).
    await env.DB.prepare("UPDATE museum_hours_exceptions SET time_close = '16:00' WHERE date = ?1").bind(day).run();

    const afterClosing = "2031-05-07T20:30:00Z"; // 16:30: closed, and more than 15 minutes before 17:00
    useClock(afterClosing);
    expect(await offlineGate(code, afterClosing)).toBe("too-late");
    expect(await expectProblem(await scan(code), 422)).toMatchObject({ type: "/problems/too-late", timeClose: "16:00" });
  });
});
