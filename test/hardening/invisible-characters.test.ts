// Invisible characters in free text (security review, issue 23): refused
// with a 400 naming the field, in every free-text field of the API, through
// the real Worker and D1; a text made only of them is blank. The emoji and
// ideograph sequences that need one of them still come back as sent.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createEvent, dumpDatabase, eventBody, expectValidationError, plusDays, todayInZone } from "../support/helpers";
import { subscriberUrl, unsubscribeAll } from "../webhooks/helpers";

/** A text with one invisible character between visible ones, per character (or kind) refused. */
const INVISIBLE: [string, string][] = [
  ["U+200B zero width space", "Pirate\u200BWorkshop"],
  ["U+200C zero width non-joiner", "Pirate\u200CWorkshop"],
  ["U+200D zero width joiner between letters", "Pirate\u200DWorkshop"],
  ["U+200E left-to-right mark", "Pirate\u200EWorkshop"],
  ["U+200F right-to-left mark", "Pirate\u200FWorkshop"],
  ["U+2060 word joiner", "Pirate\u2060Workshop"],
  ["U+2061 function application", "Pirate\u2061Workshop"],
  ["U+2062 invisible times", "Pirate\u2062Workshop"],
  ["U+2063 invisible separator", "Pirate\u2063Workshop"],
  ["U+2064 invisible plus", "Pirate\u2064Workshop"],
  ["U+FEFF byte order mark", "\uFEFFPirate Workshop"],
  ["U+3164 Hangul filler", "Pirate\u3164Workshop"],
  ["U+115F Hangul choseong filler", "Pirate \u115FWorkshop"],
  ["U+1160 Hangul jungseong filler", "Pirate \u1160Workshop"],
  ["U+FFA0 halfwidth Hangul filler", "Pirate\uFFA0Workshop"],
  ["U+00AD soft hyphen", "Pi\u00ADrate Workshop"],
  ["U+180E Mongolian vowel separator", "Pirate\u180EWorkshop"],
  ["U+034F combining grapheme joiner", "Pirate\u034FWorkshop"],
  ["U+061C Arabic letter mark", "Pirate\u061CWorkshop"],
  ["tag characters spelling hidden ASCII", "Pirate Workshop\u{E0069}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}"],
  ["U+E0001 language tag", "Pirate\u{E0001}Workshop"],
  ["U+E007F cancel tag alone", "Pirate\u{E007F}Workshop"],
  ["tag characters after a black flag that are no flag", "🏴\u{E0041}\u{E0042}\u{E007F} Workshop"],
  ["a variation selector after a variation selector", "❤\uFE0F\uFE0F Workshop"],
  ["U+FE00 variation selector 1", "Pirate\uFE00Workshop"],
  ["an ideographic variation selector after a Latin letter", "Pirate\u{E0100}Workshop"],
  ["U+FFF0 unassigned ignorable", "Pirate\uFFF0Workshop"],
];

/** Texts made only of invisible characters and blanks: "Must not be blank." */
const BLANK: [string, string][] = [
  ["zero width spaces", "\u200B\u200B\u200B"],
  ["Hangul fillers", "\u3164\u3164"],
  ["a byte order mark and spaces", " \uFEFF "],
  ["a soft hyphen", "\u00AD"],
  ["tag characters", "\u{E0041}\u{E0042}"],
  ["a Braille blank", "\u2800"],
  ["word joiners and a Hangul filler", "\u2060\u3164\u2060"],
];

/** Visible text that needs one of those characters: accepted and stored exactly. */
const NEEDED = [
  "👩‍👩‍👧‍👦 family", // zero width joiners inside an emoji
  "🏳️‍🌈 🏴‍☠️ ❤️‍🔥 👩🏽‍💻", // presentation selectors and joiners in emoji
  "1️⃣ ☀︎", // keycap; text presentation selector
  "🏴󠁧󠁢󠁥󠁮󠁧󠁿 🏴󠁧󠁢󠁳󠁣󠁴󠁿 🏴󠁧󠁢󠁷󠁬󠁳󠁿", // the flags of England, Scotland and Wales (tag sequences)
  "葛\u{E0100}飾区 展示", // an ideographic variation sequence
];

type FreeTextField = {
  field: string;
  send: (text: string) => Promise<Response>;
  /** The text as the API returns it after a successful send. */
  storedText: (res: Response) => Promise<string | undefined>;
};

let nextYear = 2300;
/** The event the PATCH cases change. */
let eventToUpdate: string;
/** An event on sale, for the order whose reference is sent. */
let eventOnSale: { eventId: string; date: string };
beforeAll(async () => {
  eventToUpdate = (await createEvent({ dates: ["2098-01-01"] })).eventId;
  const date = plusDays(todayInZone(env.MUSEUM_TIMEZONE), 30);
  eventOnSale = { eventId: (await createEvent({ dates: [date] })).eventId, date };
});

const eventText = (field: "name" | "location" | "eventDescription") => async (res: Response) =>
  ((await res.json()) as Record<string, string>)[field];

const FIELDS: FreeTextField[] = [
  ...(["name", "location", "eventDescription"] as const).flatMap((field): FreeTextField[] => [
    {
      field: `POST /special-events ${field}`,
      send: (text) => api("/v1.1/special-events", { method: "POST", json: eventBody({ [field]: text, dates: ["2099-03-03"] }) }),
      storedText: eventText(field),
    },
    {
      field: `PATCH /special-events/{id} ${field}`,
      send: (text) => api(`/v1.1/special-events/${eventToUpdate}`, { method: "PATCH", json: { [field]: text } }),
      storedText: eventText(field),
    },
  ]),
  {
    field: "PUT /museum-hours/exceptions/{date} reason",
    send: (text) => api(`/v1.1/museum-hours/exceptions/${nextYear++}-12-25`, { method: "PUT", json: { closed: true, reason: text } }),
    storedText: async (res) => ((await res.json()) as { reason?: string }).reason,
  },
  {
    field: "POST /orders reference",
    send: (text) =>
      api("/v1.1/orders", {
        method: "POST",
        json: { email: "shop@example.com", reference: text, tickets: [{ ticketType: "event", eventId: eventOnSale.eventId, ticketDate: eventOnSale.date }] },
      }),
    storedText: async (res) => ((await res.json()) as { reference?: string }).reference,
  },
  {
    field: "POST /webhooks description",
    send: (text) => api("/v1.1/webhooks", { method: "POST", json: { url: subscriberUrl(202), description: text } }),
    storedText: async (res) => ((await res.json()) as { description?: string }).description,
  },
];

/** The body property a field is sent in (the path in the 400's errors). */
const propertyOf = (field: FreeTextField) => field.field.split(" ").at(-1)!;

describe.each(FIELDS)("$field", (field) => {
  it.each(INVISIBLE)("400 for %s, naming the field and the character", async (_, text) => {
    const before = await dumpDatabase();
    const problem = await expectValidationError(await field.send(text), propertyOf(field));
    expect(problem.errors![0]!.message).toMatch(/^Must not contain invisible characters \(found U\+[0-9A-F]{4,5}\)/);
    expect(await dumpDatabase()).toBe(before);
  });

  it.each(BLANK)("400 'Must not be blank.' for %s", async (_, text) => {
    const problem = await expectValidationError(await field.send(text), propertyOf(field));
    expect(problem.errors![0]!.message).toBe("Must not be blank.");
  });

  it.each(NEEDED)("stores %s exactly as sent", async (text) => {
    const res = await field.send(text);
    expect(res.status).toBeLessThan(300);
    expect(await field.storedText(res)).toBe(text);
    await unsubscribeAll();
  });
});

describe("the invisible character found", () => {
  it("is named by its code point, the first one in the text", async () => {
    const problem = await expectValidationError(
      await api("/v1.1/special-events", { method: "POST", json: eventBody({ location: "Hall\u2063 B\u200B" }) }),
      "location",
    );
    expect(problem.errors![0]!.message).toContain("(found U+2063)");
  });

  it("is reported with every other invalid field of the request at once", async () => {
    await expectValidationError(
      await api("/v1.1/special-events", {
        method: "POST",
        json: eventBody({ name: "\u200B", location: "Hall\u3164B", eventDescription: "x\u00ADy", price: -1 }),
      }),
      "name",
      "location",
      "eventDescription",
      "price",
    );
  });
});

describe("line and paragraph separators", () => {
  it.each(["\u2028", "\u2029"])("are refused in an event description too (its line breaks are \\n): %j", async (separator) => {
    await expectValidationError(
      await api("/v1.1/special-events", { method: "POST", json: eventBody({ eventDescription: `one${separator}two` }) }),
      "eventDescription",
    );
  });
});
