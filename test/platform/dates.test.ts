import { describe, expect, it } from "vitest";
import { museumNowIn, zonedDateTime } from "../../src/platform/dates";

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

describe("zonedDateTime", () => {
  it("answers a local time as before when asked again: per zone, and never a Date another caller changed", () => {
    const first = zonedDateTime("Europe/Madrid", "2026-07-01", "09:00");
    expect(first.iso).toBe("2026-07-01T09:00:00+02:00");
    expect(first.utc.toISOString()).toBe("2026-07-01T07:00:00.000Z");
    first.utc.setUTCFullYear(2000);
    expect(zonedDateTime("Europe/Madrid", "2026-07-01", "09:00").utc.toISOString()).toBe("2026-07-01T07:00:00.000Z");
    expect(zonedDateTime("America/New_York", "2026-07-01", "09:00").iso).toBe("2026-07-01T09:00:00-04:00");
    // A time the spring clock change skips: read with the offset before it.
    expect(zonedDateTime("Europe/Madrid", "2026-03-29", "02:30").iso).toBe("2026-03-29T02:30:00+01:00");
  });
});
