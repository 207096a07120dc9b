// A ticket image's ETag (and so its edge-cache key) follows the key that signs its code.
import { describe, expect, it } from "vitest";
import { codeKeysFromEnv } from "../../src/configuration/code-keys";
import { codeSignerAt, ticketImageEtag } from "../../src/ticket-image";
import { TEST_CODE_KEYS } from "../support/code-keys";

const [T1, T2] = TEST_CODE_KEYS as [(typeof TEST_CODE_KEYS)[0], (typeof TEST_CODE_KEYS)[0]];
const NOW = new Date("2026-12-01T12:00:00Z");
const signerOf = (keys: object[]) => codeSignerAt(codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys }) }), NOW);

describe("ticket image ETag and edge-cache key", () => {
  const ticket = {
    ticketId: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
    ticketType: "general" as const,
    ticketDate: "2026-12-01",
    category: "adult",
    confirmationCode: "ticket-general-abcdef-12345",
    categoryName: "Adult",
    cancelled: false,
  };

  it("change when another key signs, even under the same key id", async () => {
    const before = await ticketImageEtag(ticket, signerOf([T1]));
    const sameId = await ticketImageEtag(ticket, signerOf([{ ...T2, kid: T1.kid, signsFrom: T1.signsFrom }]));
    const rotated = await ticketImageEtag(ticket, signerOf([T1, { ...T2, signsFrom: "2026-11-30T00:00:00Z" }]));
    expect(new Set([before, sameId, rotated]).size).toBe(3);
    // Stable for the same key; a key published but not signing yet changes nothing.
    expect(await ticketImageEtag(ticket, signerOf([T1]))).toBe(before);
    expect(await ticketImageEtag(ticket, signerOf([T1, T2]))).toBe(before);
    expect(before).not.toContain(T1.d.slice(0, 8));
  });

  it("change with what the code names: the category and the event", async () => {
    const signer = signerOf([T1]);
    const before = await ticketImageEtag(ticket, signer);
    expect(await ticketImageEtag({ ...ticket, category: "child" }, signer)).not.toBe(before);
    expect(await ticketImageEtag({ ...ticket, eventId: "3be6453c-03eb-4357-ae5a-984a0e574a54" }, signer)).not.toBe(before);
  });
});
