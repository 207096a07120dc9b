// Uuids (contract, "Errors": a malformed uuid is 400): RFC 9562, version 1
// to 8 and variant 8 to b, the nil and the max uuid, in any case. The server's
// check and the `pattern` of every uuid in the served document are one
// expression: each candidate is accepted by both or refused by both.
import { beforeAll, describe, expect, it } from "vitest";
import { api, expectProblem, expectValidationError } from "../support/helpers";

const ACCEPTED = [
  "a54a57ca-36f8-121b-a6b4-2e8f26858a4c", // version 1
  "a54a57ca-36f8-421b-86b4-2e8f26858a4c", // version 4, variant 8
  "a54a57ca-36f8-721b-96b4-2e8f26858a4c", // version 7, variant 9
  "a54a57ca-36f8-821b-b6b4-2e8f26858a4c", // version 8, variant b
  "A54A57CA-36F8-421B-A6B4-2E8F26858A4C", // upper case
  "00000000-0000-0000-0000-000000000000", // nil
  "ffffffff-ffff-ffff-ffff-ffffffffffff", // max
  "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", // max, upper case
];

const REFUSED = [
  "a54a57ca-36f8-021b-a6b4-2e8f26858a4c", // version 0
  "a54a57ca-36f8-921b-a6b4-2e8f26858a4c", // version 9
  "a54a57ca-36f8-f21b-a6b4-2e8f26858a4c", // version f
  "a54a57ca-36f8-421b-76b4-2e8f26858a4c", // variant 7 (NCS)
  "a54a57ca-36f8-421b-c6b4-2e8f26858a4c", // variant c (Microsoft)
  "a54a57ca-36f8-421b-06b4-2e8f26858a4c", // variant 0
  "00000000-0000-0000-0000-000000000001", // neither nil nor a version
  "ffffffff-ffff-ffff-ffff-fffffffffffe", // neither max nor a version
  "a54a57ca36f8421ba6b42e8f26858a4c", // no dashes
  "{a54a57ca-36f8-421b-a6b4-2e8f26858a4c}", // braces
  "urn:uuid:a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
  "a54a57ca-36f8-421b-a6b4-2e8f26858a4", // one digit short
  "g54a57ca-36f8-421b-a6b4-2e8f26858a4c", // not hexadecimal
];

/** Two days ahead: a date tickets are sold for, whatever the museum's time zone. */
const SALE_DATE = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

let pattern: RegExp;
let uuidSchemas: Record<string, unknown>[];

beforeAll(async () => {
  const doc = (await (await api("/v1.1/openapi.json", { as: null })).json()) as object;
  uuidSchemas = [];
  const walk = (node: unknown) => {
    if (typeof node !== "object" || node === null) return;
    if ((node as { format?: unknown }).format === "uuid") uuidSchemas.push(node as Record<string, unknown>);
    Object.values(node).forEach(walk);
  };
  walk(doc);
  pattern = new RegExp(String(uuidSchemas[0]?.pattern), "u");
});

describe("the document", () => {
  it("gives every uuid (ids in paths, bodies and answers, scanId, requestId) the same pattern", () => {
    expect(uuidSchemas.length).toBeGreaterThan(20);
    for (const schema of uuidSchemas) expect(schema.pattern).toBe(pattern.source);
  });

  it("has a pattern that accepts exactly the RFC 9562 uuids", () => {
    for (const id of ACCEPTED) expect(pattern.test(id), id).toBe(true);
    for (const id of REFUSED) expect(pattern.test(id), id).toBe(false);
  });
});

describe("the server agrees with the pattern", () => {
  it.each(ACCEPTED)("takes %s as a path id (404: no such ticket) and as a body id (404: no such event)", async (id) => {
    await expectProblem(await api(`/v1.1/tickets/${id}`), 404);
    const res = await api("/v1.1/tickets", {
      method: "POST",
      as: "sales",
      json: { ticketType: "event", eventId: id, ticketDate: SALE_DATE, email: "a@example.com" },
    });
    await expectProblem(res, 404);
  });

  it.each(REFUSED)("refuses %s as a path id and as a body id (400 naming it)", async (id) => {
    const path = await expectValidationError(await api(`/v1.1/tickets/${encodeURIComponent(id)}`), "path.ticketId");
    expect(path.errors![0]!.message).toBe("Must be a uuid (RFC 9562).");
    const body = await api("/v1.1/tickets", {
      method: "POST",
      as: "sales",
      json: { ticketType: "event", eventId: id, ticketDate: SALE_DATE, email: "a@example.com" },
    });
    await expectValidationError(body, "eventId");
  });
});
