import { beforeEach, describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, expectValidationError } from "../support/helpers";
import { useClock } from "../support/clock";

// Tuesday 1 December 2026, 10:00 in New York (the museum's time zone).
const NOW = "2026-12-01T15:00:00Z";

type Day = { date: string; timeOpen: string; timeClose: string };

async function hours(query = ""): Promise<{ res: Response; days: Day[] }> {
  const res = await api(`/v1.1/museum-hours${query}`, { as: "sales" });
  expect(res.status).toBe(200);
  return { res, days: (await res.json()) as Day[] };
}

beforeEach(() => useClock(NOW));

describe("GET /museum-hours", () => {
  it("lists open days from today by default, weekends left out", async () => {
    const { days } = await hours();
    expect(days).toHaveLength(10);
    expect(days.slice(0, 5)).toEqual([
      { date: "2026-12-01", timeOpen: "09:00", timeClose: "18:00" },
      { date: "2026-12-02", timeOpen: "09:00", timeClose: "18:00" },
      { date: "2026-12-03", timeOpen: "09:00", timeClose: "18:00" },
      { date: "2026-12-04", timeOpen: "10:00", timeClose: "16:00" },
      { date: "2026-12-07", timeOpen: "09:00", timeClose: "18:00" },
    ]);
  });

  it("uses the museum's date when UTC is already tomorrow", async () => {
    useClock("2026-12-02T03:00:00Z"); // 22:00 on 1 Dec in New York
    const { days } = await hours("?limit=1");
    expect(days[0]!.date).toBe("2026-12-01");
  });

  it("pages by open days with Link headers", async () => {
    const first = await hours("?startDate=2026-12-07&limit=3");
    expect(first.days.map((d) => d.date)).toEqual(["2026-12-07", "2026-12-08", "2026-12-09"]);
    expect(first.res.headers.get("Link")).toBe('</v1.1/museum-hours?startDate=2026-12-07&limit=3&page=2>; rel="next"');
    const second = await hours("?startDate=2026-12-07&limit=3&page=2");
    expect(second.days.map((d) => d.date)).toEqual(["2026-12-10", "2026-12-11", "2026-12-14"]);
    expect(second.res.headers.get("Link")).toContain('rel="prev"');
    expect(second.res.headers.get("Link")).toContain('rel="next"');
  });

  it("publishes a year ahead and nothing after", async () => {
    const { days } = await hours("?startDate=2027-12-02");
    expect(days).toEqual([]);
    const last = await hours("?startDate=2027-11-29&limit=30");
    expect(last.days.at(-1)!.date <= "2027-12-01").toBe(true);
    expect(last.res.headers.get("Link") ?? "").not.toContain('rel="next"');
  });

  it("returns [] for a page past the end", async () => {
    const { days } = await hours("?startDate=2027-11-29&page=1000&limit=30");
    expect(days).toEqual([]);
  });

  it.each([
    ["?startDate=2026-02-30", "query.startDate"],
    ["?startDate=tomorrow", "query.startDate"],
    ["?page=0", "query.page"],
    ["?limit=31", "query.limit"],
    ["?limit=abc", "query.limit"],
    ["?limit=0", "query.limit"],
    ["?page=1.5", "query.page"],
    ["?limit=1&limit=2", "query.limit"],
  ])("refuses %s", async (query, path) => {
    await expectValidationError(await api(`/v1.1/museum-hours${query}`), path);
  });
});

describe("hours administration", () => {
  // The week the migrations seed: 09:00–18:00 Monday to Thursday, shorter on Friday, closed at weekends.
  const weekday = { timeOpen: "09:00", timeClose: "18:00" };
  const week = {
    sunday: null,
    monday: weekday,
    tuesday: weekday,
    wednesday: weekday,
    thursday: weekday,
    friday: { timeOpen: "10:00", timeClose: "16:00" },
    saturday: null,
  };

  it("reads and replaces the weekly schedule", async () => {
    const current = await api("/v1.1/museum-hours/schedule");
    expect(await current.json()).toEqual(week);

    const longer = { ...week, saturday: { timeOpen: "11:00", timeClose: "15:30" } };
    const put = await api("/v1.1/museum-hours/schedule", { method: "PUT", json: longer });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual(longer);
    const { days } = await hours("?startDate=2026-12-04&limit=2");
    expect(days).toEqual([
      { date: "2026-12-04", timeOpen: "10:00", timeClose: "16:00" },
      { date: "2026-12-05", timeOpen: "11:00", timeClose: "15:30" },
    ]);
    // Back to the seeded week for the other tests.
    expect((await api("/v1.1/museum-hours/schedule", { method: "PUT", json: week })).status).toBe(200);
  });

  it("closes a day, sets special hours and removes an exception", async () => {
    const closed = await api("/v1.1/museum-hours/exceptions/2026-12-24", {
      method: "PUT",
      json: { closed: true, reason: "Christmas Eve" },
    });
    expect(closed.status).toBe(201);
    expect(await closed.json()).toEqual({ date: "2026-12-24", closed: true, reason: "Christmas Eve" });

    const special = await api("/v1.1/museum-hours/exceptions/2026-12-26", {
      method: "PUT",
      json: { closed: false, timeOpen: "12:00", timeClose: "15:00" },
    });
    expect(special.status).toBe(201);

    const { days } = await hours("?startDate=2026-12-23&limit=3");
    expect(days.map((d) => d.date)).toEqual(["2026-12-23", "2026-12-25", "2026-12-26"]);
    expect(days[2]).toEqual({ date: "2026-12-26", timeOpen: "12:00", timeClose: "15:00" });

    const replaced = await api("/v1.1/museum-hours/exceptions/2026-12-24", {
      method: "PUT",
      json: { closed: false, timeOpen: "09:00", timeClose: "13:00" },
    });
    expect(replaced.status).toBe(200);

    const list = await api("/v1.1/museum-hours/exceptions?startDate=2026-12-01&endDate=2026-12-31");
    expect(await list.json()).toEqual([
      { date: "2026-12-24", closed: false, timeOpen: "09:00", timeClose: "13:00" },
      { date: "2026-12-26", closed: false, timeOpen: "12:00", timeClose: "15:00" },
    ]);

    expect((await api("/v1.1/museum-hours/exceptions/2026-12-24", { method: "DELETE" })).status).toBe(204);
    expect((await api("/v1.1/museum-hours/exceptions/2026-12-26", { method: "DELETE" })).status).toBe(204);
    await expectProblem(await api("/v1.1/museum-hours/exceptions/2026-12-26", { method: "DELETE" }), 404);
  });

  it.each([
    ["a time that is not HH:mm", { ...week, monday: { timeOpen: "9:00", timeClose: "18:00" } }, ["monday.timeOpen"]],
    ["24:00", { ...week, monday: { timeOpen: "09:00", timeClose: "24:00" } }, ["monday.timeClose"]],
    ["opening after closing", { ...week, friday: { timeOpen: "16:00", timeClose: "10:00" } }, ["friday.timeClose"]],
    ["opening at closing", { ...week, friday: { timeOpen: "10:00", timeClose: "10:00" } }, ["friday.timeClose"]],
    ["a missing weekday", { ...week, sunday: undefined }, ["sunday"]],
    ["an unknown weekday", { ...week, funday: null }, ["funday"]],
    ["an unknown field in a day", { ...week, monday: { timeOpen: "09:00", timeClose: "18:00", lunch: "12:00" } }, ["monday.lunch"]],
    ["a number for a time", { ...week, monday: { timeOpen: 9, timeClose: "18:00" } }, ["monday.timeOpen"]],
  ])("refuses a schedule with %s, changing nothing", async (_, body, paths) => {
    const before = await dumpDatabase();
    await expectValidationError(await api("/v1.1/museum-hours/schedule", { method: "PUT", json: body }), ...paths);
    expect(await dumpDatabase()).toBe(before);
  });

  it.each([
    ["closed with times", { closed: true, timeOpen: "09:00" }, ["timeOpen"]],
    ["open without times", { closed: false }, ["timeOpen", "timeClose"]],
    ["open after close", { closed: false, timeOpen: "18:00", timeClose: "09:00" }, ["timeClose"]],
    ["a bad time", { closed: false, timeOpen: "09:60", timeClose: "18:00" }, ["timeOpen"]],
    ["no closed flag", { timeOpen: "09:00", timeClose: "18:00" }, ["closed"]],
    ["closed as a string", { closed: "yes" }, ["closed"]],
    ["a long reason", { closed: true, reason: "x".repeat(201) }, ["reason"]],
    ["an empty reason", { closed: true, reason: "" }, ["reason"]],
    ["an unknown field", { closed: true, note: "x" }, ["note"]],
  ])("refuses an exception with %s, changing nothing", async (_, body, paths) => {
    const before = await dumpDatabase();
    await expectValidationError(
      await api("/v1.1/museum-hours/exceptions/2026-12-31", { method: "PUT", json: body }),
      ...paths,
    );
    expect(await dumpDatabase()).toBe(before);
  });

  it("refuses an exception for a date that does not exist", async () => {
    await expectValidationError(
      await api("/v1.1/museum-hours/exceptions/2026-02-30", { method: "PUT", json: { closed: true } }),
      "path.date",
    );
    await expectValidationError(await api("/v1.1/museum-hours/exceptions/soon", { method: "DELETE" }), "path.date");
  });

  it("refuses endDate before startDate when listing exceptions", async () => {
    await expectValidationError(
      await api("/v1.1/museum-hours/exceptions?startDate=2026-12-10&endDate=2026-12-09"),
      "query.endDate",
    );
  });

  it("is admin-only", async () => {
    for (const [method, path, json] of [
      ["GET", "/v1.1/museum-hours/schedule", undefined],
      ["PUT", "/v1.1/museum-hours/schedule", week],
      ["GET", "/v1.1/museum-hours/exceptions", undefined],
      ["PUT", "/v1.1/museum-hours/exceptions/2026-12-31", { closed: true }],
      ["DELETE", "/v1.1/museum-hours/exceptions/2026-12-31", undefined],
    ] as const) {
      const before = await dumpDatabase();
      await expectProblem(await api(path, { method, as: "sales", json }), 403);
      expect(await dumpDatabase()).toBe(before);
    }
  });
});
