// Fuzzing the museum-hours operations (see ./fuzz.ts for the invariants).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WEEKDAYS } from "../../src/hours/schemas";
import { authHeader } from "../support/helpers";
import {
  PROPERTY_TIMEOUT_MS,
  body,
  bodies,
  date,
  expectSome,
  fuzz,
  isoDay,
  oddString,
  oddText,
  pageParam,
  query,
  segment,
  send,
  summary,
  time,
  requests,
  type FuzzRequest,
} from "./fuzz";

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
/** Opening hours with timeOpen before timeClose. */
const validHours = fc
  .uniqueArray(fc.integer({ min: 0, max: 23 * 60 + 59 }), { minLength: 2, maxLength: 2 })
  .map(([a, b]) => ({ timeOpen: hhmm(Math.min(a!, b!)), timeClose: hhmm(Math.max(a!, b!)) }));

const hoursModel = fc.oneof(fc.constant(null), validHours, fc.record({ timeOpen: fc.oneof(time, oddString), timeClose: fc.oneof(time, oddString) }, { requiredKeys: [] }));
const scheduleModel = Object.fromEntries(WEEKDAYS.map((day) => [day, hoursModel]));
const validSchedule = fc.record(Object.fromEntries(WEEKDAYS.map((day) => [day, fc.option(validHours, { nil: null })]))) as fc.Arbitrary<
  Record<string, unknown>
>;

const exceptionModel = {
  closed: fc.boolean(),
  timeOpen: time,
  timeClose: time,
  reason: fc.oneof(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 199, maxLength: 202 }), oddString),
};
const validException = fc.oneof(
  fc.record({ closed: fc.constant(true), reason: fc.oneof(fc.string({ minLength: 1, maxLength: 50 }), oddText) }, { requiredKeys: ["closed"] }),
  fc
    .tuple(validHours, fc.option(fc.string({ minLength: 1, maxLength: 50 }), { nil: undefined }))
    .map(([hours, reason]) => ({ closed: false, ...hours, ...(reason === undefined ? {} : { reason }) })),
) as fc.Arbitrary<Record<string, unknown>>;

/** Exception dates: a small set (so PUT and DELETE meet), real dates, odd segments. */
const exceptionDate = segment(fc.oneof(fc.integer({ min: 200, max: 205 }).map(isoDay), date), 6);

/** An accepted exception is stored as sent: reading it back gives the same closure or hours and reason. */
async function storedAsSent(request: FuzzRequest, res: Response) {
  const sent = JSON.parse(request.body!) as Record<string, unknown>;
  const answered = (await res.json()) as { date: string };
  const list = await send({
    method: "GET",
    target: `/v1.1/museum-hours/exceptions?startDate=${answered.date}&endDate=${answered.date}`,
    headers: { Authorization: authHeader("admin"), "CF-Connecting-IP": "198.18.255.254" },
  });
  expect(list.status).toBe(200);
  expect(await list.json()).toStrictEqual([{ date: answered.date, ...sent }]);
}

describe("fuzzing museum hours", () => {
  it(
    "GET /museum-hours (query)",
    async () => {
      const q = query({ startDate: date, page: pageParam, limit: pageParam });
      const statuses = await fuzz("GET /museum-hours", requests("GET", q.map((s) => `/v1.1/museum-hours${s}`)));
      expectSome(statuses, 200, 400);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "GET /museum-hours/schedule (headers, stray query)",
    async () => {
      const q = query({ startDate: date, x: oddString });
      const statuses = await fuzz("GET /museum-hours/schedule", requests("GET", q.map((s) => `/v1.1/museum-hours/schedule${s}`)));
      expectSome(statuses, 200);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "PUT /museum-hours/schedule (body)",
    async () => {
      const statuses = await fuzz(
        "PUT /museum-hours/schedule",
        requests("PUT", fc.constant("/v1.1/museum-hours/schedule"), body(bodies(validSchedule, scheduleModel))),
        { write: true },
      );
      expectSome(statuses, 200, 400);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "GET /museum-hours/exceptions (query)",
    async () => {
      const q = query({ startDate: date, endDate: date });
      const statuses = await fuzz("GET /museum-hours/exceptions", requests("GET", q.map((s) => `/v1.1/museum-hours/exceptions${s}`)));
      expectSome(statuses, 200, 400);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "PUT /museum-hours/exceptions/{date} (path and body)",
    async () => {
      const statuses = await fuzz(
        "PUT /museum-hours/exceptions/{date}",
        requests("PUT", exceptionDate.map((d) => `/v1.1/museum-hours/exceptions/${d}`), body(bodies(validException, exceptionModel))),
        { write: true, onSuccess: storedAsSent },
      );
      expectSome(statuses, 400);
      expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0), summary(statuses)).toBeGreaterThan(0);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "DELETE /museum-hours/exceptions/{date} (path)",
    async () => {
      const statuses = await fuzz(
        "DELETE /museum-hours/exceptions/{date}",
        requests("DELETE", exceptionDate.map((d) => `/v1.1/museum-hours/exceptions/${d}`)),
        { write: true },
      );
      expectSome(statuses, 400, 404);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
