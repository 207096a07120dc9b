// A ticket image's ETag (and so its edge-cache key) follows the signing key.
import { describe, expect, it } from "vitest";
import { ticketImageEtag } from "../../src/ticket-image";

describe("ticket image ETag and edge-cache key", () => {
  const ticket = {
    ticketId: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
    ticketType: "general" as const,
    ticketDate: "2026-12-01",
    confirmationCode: "ticket-general-abcdef-12345",
    categoryName: "Adult",
    cancelled: false,
  };

  it("change when the signing key is rotated under the same key id", async () => {
    const before = await ticketImageEtag(ticket, { current: { id: "K1", secret: "a".repeat(64) } });
    const after = await ticketImageEtag(ticket, { current: { id: "K1", secret: "b".repeat(64) } });
    expect(after).not.toBe(before);
    // Stable for the same key, and the key itself is not in it.
    expect(await ticketImageEtag(ticket, { current: { id: "K1", secret: "a".repeat(64) } })).toBe(before);
    expect(before).not.toContain("aaaa");
  });
});
