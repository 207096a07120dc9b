// Fuzzing the special-events operations (see ./fuzz.ts for the invariants).
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createEvent } from "../support/helpers";
import {
  PROPERTY_TIMEOUT_MS,
  body,
  bodies,
  date,
  expectSome,
  fuzz,
  isoDay,
  oddNumber,
  oddString,
  oddText,
  pageParam,
  query,
  segment,
  uuidLike,
  requests,
  type FuzzRequest,
} from "./fuzz";

const BASE = "/v1.1/special-events";
const known: string[] = [];

beforeAll(async () => {
  for (const offset of [100, 101, 102, 400]) {
    known.push((await createEvent({ dates: [isoDay(offset), isoDay(offset + 1)] })).eventId);
  }
});

const text = (max: number) => fc.oneof(fc.string({ minLength: 1, maxLength: Math.min(max, 60) }), fc.string({ minLength: max - 2, maxLength: max + 2 }), oddString);
const validDate = fc.integer({ min: 0, max: 3650 }).map(isoDay);

const model = {
  name: text(200),
  location: text(200),
  eventDescription: text(5000),
  dates: fc.oneof(
    fc.array(date, { minLength: 0, maxLength: 5 }),
    fc.uniqueArray(validDate, { minLength: 360, maxLength: 370 }),
    fc.array(validDate, { minLength: 2, maxLength: 4 }).map((d) => [...d, d[0]!]),
  ),
  price: fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 100_000_000 }).map((c) => c / 100), oddNumber),
};

/** Text the schema takes: 1 or more characters, not blank; often awkward Unicode. */
const validText = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), oddText).filter((s) => s.trim() !== "");

const validEvent = fc.record({
  name: validText,
  location: validText,
  eventDescription: validText,
  dates: fc.uniqueArray(validDate, { minLength: 1, maxLength: 4 }),
  price: fc.integer({ min: 0, max: 100_000_000 }).map((c) => c / 100),
});

/** A partial update: any non-empty subset of the valid fields. */
const validPatch = validEvent.chain((event) =>
  fc.subarray(Object.keys(event), { minLength: 1 }).map((keys) => Object.fromEntries(keys.map((k) => [k, event[k as keyof typeof event]]))),
);

const eventId = segment(uuidLike(() => known));

/**
 * What an accepted create or update answers is what was sent: every field
 * sent comes back unchanged (dates sorted), so nothing was altered on the way
 * into D1 and back.
 */
async function echoesWhatWasSent(request: FuzzRequest, res: Response) {
  const sent = JSON.parse(request.body!) as Record<string, unknown>;
  const stored = (await res.json()) as Record<string, unknown>;
  for (const key of ["name", "location", "eventDescription", "price"]) {
    if (key in sent) expect(stored[key], key).toStrictEqual(sent[key]);
  }
  if ("dates" in sent) expect(stored.dates).toStrictEqual([...(sent.dates as string[])].sort());
}

describe("fuzzing special events", () => {
  it(
    "GET /special-events (query)",
    async () => {
      const q = query({ startDate: date, endDate: date, page: pageParam, limit: pageParam });
      const statuses = await fuzz("GET /special-events", requests("GET", q.map((s) => `${BASE}${s}`)));
      expectSome(statuses, 200, 400);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "POST /special-events (body)",
    async () => {
      const statuses = await fuzz("POST /special-events", requests("POST", fc.constant(BASE), body(bodies(validEvent, model))), {
        write: true,
        onSuccess: echoesWhatWasSent,
      });
      expectSome(statuses, 201, 400);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "GET /special-events/{eventId} (path)",
    async () => {
      const statuses = await fuzz("GET /special-events/{id}", requests("GET", eventId.map((id) => `${BASE}/${id}`)));
      expectSome(statuses, 200, 400);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "PATCH /special-events/{eventId} (path and body)",
    async () => {
      const statuses = await fuzz(
        "PATCH /special-events/{id}",
        requests("PATCH", segment(uuidLike(() => known, 9), 8).map((id) => `${BASE}/${id}`), body(bodies(validPatch, model))),
        { write: true, onSuccess: echoesWhatWasSent },
      );
      expectSome(statuses, 200, 400);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "DELETE /special-events/{eventId} (path)",
    async () => {
      // Delete only what this file made up: fresh events, so the others stay for the other properties.
      const victims: string[] = [];
      for (const offset of [600, 601, 602]) victims.push((await createEvent({ dates: [isoDay(offset)] })).eventId);
      const target = segment(uuidLike(() => victims)).map((id) => `${BASE}/${id}`);
      const statuses = await fuzz("DELETE /special-events/{id}", requests("DELETE", target), { write: true });
      expectSome(statuses, 204, 404);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
