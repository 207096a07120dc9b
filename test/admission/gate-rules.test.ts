// The rules an offline gate applies (museum-api-client/gate) and the
// service too, held together over generated inputs (fast-check): the
// museum's clock.
import fc from "fast-check";
import { museumNow } from "museum-api-client/gate";
import { describe, expect, it } from "vitest";
import { museumNowIn } from "../../src/platform/dates";

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
