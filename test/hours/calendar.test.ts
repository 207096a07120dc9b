import { describe, expect, it } from "vitest";
import { hoursOn, openDays, type Calendar } from "../../src/hours/calendar";
import { museumNowIn } from "../../src/platform/dates";

const nineToSix = { timeOpen: "09:00", timeClose: "18:00" };
const calendar: Calendar = {
  weekly: { 1: nineToSix, 2: nineToSix, 3: nineToSix, 4: nineToSix, 5: { timeOpen: "10:00", timeClose: "16:00" } },
  exceptions: new Map([
    ["2026-12-25", { date: "2026-12-25", hours: null, reason: "Christmas" }],
    ["2026-12-26", { date: "2026-12-26", hours: { timeOpen: "12:00", timeClose: "15:00" }, reason: null }],
  ]),
};

describe("hoursOn", () => {
  it("follows the weekly schedule", () => {
    expect(hoursOn(calendar, "2026-12-21")).toEqual(nineToSix); // Monday
    expect(hoursOn(calendar, "2026-12-18")).toEqual({ timeOpen: "10:00", timeClose: "16:00" }); // Friday
    expect(hoursOn(calendar, "2026-12-19")).toBeNull(); // Saturday
    expect(hoursOn(calendar, "2026-12-20")).toBeNull(); // Sunday
  });

  it("lets an exception close an open day or open a closed one", () => {
    expect(hoursOn(calendar, "2026-12-25")).toBeNull(); // a Friday
    expect(hoursOn(calendar, "2026-12-26")).toEqual({ timeOpen: "12:00", timeClose: "15:00" }); // a Saturday
  });
});

describe("openDays", () => {
  it("lists open days only, skipping and taking open days", () => {
    const days = openDays(calendar, { from: "2026-12-21", to: "2027-01-10" }, { skip: 3, take: 4 });
    expect(days.map((d) => d.date)).toEqual(["2026-12-24", "2026-12-26", "2026-12-28", "2026-12-29"]);
  });

  it("stops at the end of the range", () => {
    expect(openDays(calendar, { from: "2026-12-19", to: "2026-12-20" }, { skip: 0, take: 10 })).toEqual([]);
  });
});

describe("museumNowIn", () => {
  it("is the museum's date and time, not the server's UTC date", () => {
    // 03:00 UTC on 2 Dec is still 1 Dec in New York ...
    expect(museumNowIn("America/New_York", new Date("2026-12-02T03:00:00Z"))).toEqual({ today: "2026-12-01", time: "22:00", utcOffsetMinutes: -300 });
    // ... and already 3 Dec in Auckland at 13:00 UTC on 2 Dec.
    expect(museumNowIn("Pacific/Auckland", new Date("2026-12-02T13:00:00Z"))).toEqual({ today: "2026-12-03", time: "02:00", utcOffsetMinutes: 780 });
  });

  it("says how far the museum's clock is ahead of UTC then: summer time, and zones off by part of an hour", () => {
    expect(museumNowIn("America/New_York", new Date("2026-07-01T15:59:59.999Z")).utcOffsetMinutes).toBe(-240);
    expect(museumNowIn("Asia/Kathmandu", new Date("2026-07-01T00:00:30Z"))).toEqual({ today: "2026-07-01", time: "05:45", utcOffsetMinutes: 345 });
    expect(museumNowIn("America/St_Johns", new Date("2026-12-01T02:00:00Z"))).toEqual({ today: "2026-11-30", time: "22:30", utcOffsetMinutes: -210 });
  });

  it("formats once a minute per zone: the same minute in another zone is formatted anew", () => {
    const at = new Date("2026-12-02T03:00:30Z");
    expect(museumNowIn("America/New_York", at).today).toBe("2026-12-01");
    expect(museumNowIn("Europe/Madrid", at).today).toBe("2026-12-02");
    expect(museumNowIn("America/New_York", new Date("2026-12-02T05:00:00Z")).time).toBe("00:00");
  });
});
