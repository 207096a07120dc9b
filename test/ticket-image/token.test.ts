import { describe, expect, it } from "vitest";
import { signingKeysFromEnv, type SigningKeys } from "../../src/configuration/signing-keys";
import { signTicketToken, verifyTicketToken } from "../../src/ticket-image";
import { MAX_TOKEN_LENGTH, base32Decode, base32Encode } from "../../src/ticket-image/legacy-token";
import { ticketIdOfCode } from "../../tools/lib/ticket-qr.mjs";

const SECRET_OLD = "old-ticket-signing-secret-for-tests-0001";
const SECRET_NEW = "new-ticket-signing-secret-for-tests-0002";
const OLD: SigningKeys = { current: { id: "K1", secret: SECRET_OLD } };
const NEW: SigningKeys = { current: { id: "K2", secret: SECRET_NEW } };
const ROTATING: SigningKeys = { current: NEW.current, previous: [OLD.current] };

const TICKET = {
  ticketId: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
  ticketType: "event",
  ticketDate: "2023-09-05",
} as const;

/** The QR alphanumeric-mode character set. */
const QR_ALPHANUMERIC = /^[0-9A-Z $%*+\-./:]+$/;
const FORMAT = /^MT1\.K2\.E20230905\.[A-Z2-7]{26}\.[A-Z2-7]{26}$/;

/** Replaces the character at index i with another character of the base32 alphabet. */
function flip(token: string, i: number): string {
  const ch = token[i] === "A" ? "B" : "A";
  return token.slice(0, i) + ch + token.slice(i + 1);
}

function segments(token: string) {
  const [version, kid, typeDate, id, sig] = token.split(".") as [string, string, string, string, string];
  return { version, kid, typeDate, id, sig };
}

describe("ticket token: format", () => {
  it("names its ticket as the scripts read it (tools/lib/ticket-qr.mjs)", async () => {
    for (const ticketId of [TICKET.ticketId, "00000000-0000-4000-8000-000000000000", "ffffffff-ffff-4fff-bfff-ffffffffffff"]) {
      expect(ticketIdOfCode(await signTicketToken({ ...TICKET, ticketId }, NEW))).toBe(ticketId);
    }
    expect(() => ticketIdOfCode("MT1.K2.E20230905.NOT-BASE32.X")).toThrow(/not a ticket code/);
  });

  it("is MT1.<KID>.<T><YYYYMMDD>.<ID>.<SIG>, 70 characters, all QR-alphanumeric", async () => {
    const token = await signTicketToken(TICKET, NEW);
    expect(token).toMatch(FORMAT);
    expect(token).toHaveLength(70);
    expect(token).toMatch(QR_ALPHANUMERIC);
    expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
    // The ID segment is the uuid's 16 bytes in base32.
    const idBytes = base32Decode(segments(token).id, 16)!;
    expect([...idBytes].map((b) => b.toString(16).padStart(2, "0")).join("")).toBe(TICKET.ticketId.replaceAll("-", ""));
  });

  it("is deterministic, and the same for an upper-case uuid", async () => {
    const a = await signTicketToken(TICKET, NEW);
    expect(await signTicketToken(TICKET, NEW)).toBe(a);
    expect(await signTicketToken({ ...TICKET, ticketId: TICKET.ticketId.toUpperCase() }, NEW)).toBe(a);
  });

  it("names the ticket only: extra fields such as e-mail or phone never reach it", async () => {
    const withPii = { ...TICKET, email: "visitor@example.com", phone: "+1 555 0100", name: "Ada" };
    const token = await signTicketToken(withPii as typeof TICKET, NEW);
    expect(token).toBe(await signTicketToken(TICKET, NEW));
    expect(token).not.toMatch(/EXAMPLE|VISITOR|5550100|ADA/i);
  });

  it("encodes general tickets as G and event tickets as E", async () => {
    expect(segments(await signTicketToken({ ...TICKET, ticketType: "general" }, NEW)).typeDate).toBe("G20230905");
    expect(segments(await signTicketToken(TICKET, NEW)).typeDate).toBe("E20230905");
  });

  it("refuses to sign a malformed ticket", async () => {
    await expect(signTicketToken({ ...TICKET, ticketId: "not-a-uuid" }, NEW)).rejects.toThrow(/ticketId/);
    await expect(signTicketToken({ ...TICKET, ticketDate: "2023-02-30" }, NEW)).rejects.toThrow(/ticketDate/);
    await expect(signTicketToken({ ...TICKET, ticketDate: "5 Sep 2023" }, NEW)).rejects.toThrow(/ticketDate/);
    await expect(signTicketToken({ ...TICKET, ticketType: "vip" as "event" }, NEW)).rejects.toThrow(/ticketType/);
    await expect(signTicketToken(TICKET, { current: { id: "k2", secret: SECRET_NEW } })).rejects.toThrow(/key id/);
  });

  it("base32 round-trips and rejects non-canonical text", () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255, 16, 32, 64, 128, 7, 9, 11]);
    const text = base32Encode(bytes);
    expect(text).toHaveLength(26);
    expect(base32Decode(text, 16)).toEqual(bytes);
    expect(base32Encode(new TextEncoder().encode("foobar"))).toBe("MZXW6YTBOI"); // RFC 4648 test vector
    expect(base32Decode(text.slice(0, -1) + "7", 16)).toBeNull(); // unused low bits set
    expect(base32Decode(text.toLowerCase(), 16)).toBeNull();
    expect(base32Decode(text + "A", 16)).toBeNull();
  });
});

describe("ticket token: verification", () => {
  it("accepts a real token and returns what it names", async () => {
    const token = await signTicketToken(TICKET, NEW);
    expect(await verifyTicketToken(token, NEW)).toEqual({ ...TICKET, keyId: "K2" });
    const general = await signTicketToken({ ...TICKET, ticketType: "general", ticketDate: "2024-02-29" }, NEW);
    expect(await verifyTicketToken(general, NEW)).toEqual({
      ticketId: TICKET.ticketId,
      ticketType: "general",
      ticketDate: "2024-02-29",
      keyId: "K2",
    });
  });

  it("rejects a forged signature", async () => {
    const token = await signTicketToken(TICKET, NEW);
    const { sig } = segments(token);
    expect(await verifyTicketToken(flip(token, token.length - 5), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace(sig, "A".repeat(26)), NEW)).toBeNull();
    // Signed with another secret under the same key id.
    const other = await signTicketToken(TICKET, { current: { id: "K2", secret: SECRET_OLD } });
    expect(await verifyTicketToken(other, NEW)).toBeNull();
  });

  it("rejects an altered ticketId, date or type (signature kept)", async () => {
    const token = await signTicketToken(TICKET, NEW);
    const { id } = segments(token);
    const idStart = token.indexOf(id);
    for (let i = idStart; i < idStart + 25; i += 4) {
      expect(await verifyTicketToken(flip(token, i), NEW)).toBeNull();
    }
    // Another real ticket's id, spliced in.
    const otherId = segments(await signTicketToken({ ...TICKET, ticketId: "b811f723-17b2-44f7-8952-24b03e43d8a9" }, NEW)).id;
    expect(await verifyTicketToken(token.replace(id, otherId), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace("E20230905", "E20230906"), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace("E20230905", "E20240905"), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace("E20230905", "G20230905"), NEW)).toBeNull();
  });

  it("rejects an unknown key id and a wrong version", async () => {
    const token = await signTicketToken(TICKET, NEW);
    expect(await verifyTicketToken(token.replace(".K2.", ".K9."), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace(".K2.", ".K1."), ROTATING)).toBeNull(); // known id, wrong key
    expect(await verifyTicketToken(token, OLD)).toBeNull();
    expect(await verifyTicketToken(token.replace(/^MT1/, "MT2"), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace(/^MT1/, "MT0"), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace(/^MT1\./, ""), NEW)).toBeNull();
  });

  it("rejects every truncation, and extra characters", async () => {
    const token = await signTicketToken(TICKET, NEW);
    for (let n = 0; n < token.length; n++) {
      expect(await verifyTicketToken(token.slice(0, n), NEW)).toBeNull();
    }
    expect(await verifyTicketToken(token.slice(1), NEW)).toBeNull();
    expect(await verifyTicketToken(`${token}A`, NEW)).toBeNull();
    expect(await verifyTicketToken(`${token}.`, NEW)).toBeNull();
    expect(await verifyTicketToken(` ${token}`, NEW)).toBeNull();
    expect(await verifyTicketToken(`${token}\n`, NEW)).toBeNull();
  });

  it("rejects a lower-cased token", async () => {
    const token = await signTicketToken(TICKET, NEW);
    expect(await verifyTicketToken(token.toLowerCase(), NEW)).toBeNull();
    expect(await verifyTicketToken(token.replace(".K2.", ".k2."), NEW)).toBeNull();
  });

  it("rejects garbage, empty, very long and non-string input without throwing", async () => {
    const token = await signTicketToken(TICKET, NEW);
    const inputs: unknown[] = [
      "",
      "hello",
      "MT1",
      "MT1....",
      "MT1.K2.E20230905.!!!!!!!!!!!!!!!!!!!!!!!!!!.AAAAAAAAAAAAAAAAAAAAAAAAAA",
      "MT1.K2.E20230230.AAAAAAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAA",
      "https://museum.example/tickets/a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
      "\u0000".repeat(70),
      "MT1.K2.E20230905.ÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄ.AAAAAAAAAAAAAAAAAAAAAAAAAA",
      token.replaceAll(".", ":"),
      "A".repeat(100_000),
      token.repeat(1_000),
      undefined,
      null,
      42,
      { token },
    ];
    for (const input of inputs) {
      expect(await verifyTicketToken(input as string, ROTATING)).toBeNull();
    }
  });
});

describe("ticket token: key rotation", () => {
  it("a token signed with a previous key verifies while that key is listed, and fails once it is removed", async () => {
    const issuedBefore = await signTicketToken(TICKET, OLD);
    expect(segments(issuedBefore).kid).toBe("K1");
    // Rotation: K2 becomes current, K1 stays as previous.
    expect(await verifyTicketToken(issuedBefore, ROTATING)).toEqual({ ...TICKET, keyId: "K1" });
    // New tokens are signed with the current key only.
    const issuedAfter = await signTicketToken(TICKET, ROTATING);
    expect(segments(issuedAfter).kid).toBe("K2");
    expect(await verifyTicketToken(issuedAfter, ROTATING)).toEqual({ ...TICKET, keyId: "K2" });
    expect(await verifyTicketToken(issuedAfter, OLD)).toBeNull();
    // K1 removed.
    expect(await verifyTicketToken(issuedBefore, NEW)).toBeNull();
    expect(await verifyTicketToken(issuedAfter, NEW)).toEqual({ ...TICKET, keyId: "K2" });
  });

  it("works end to end through signingKeysFromEnv", async () => {
    const before = signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_OLD });
    const token = await signTicketToken(TICKET, before);
    const during = signingKeysFromEnv({
      TICKET_SIGNING_KEY: SECRET_NEW,
      TICKET_SIGNING_KEY_ID: "K2",
      TICKET_SIGNING_KEYS_PREVIOUS: `K1:${SECRET_OLD}`,
    });
    const after = signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_NEW, TICKET_SIGNING_KEY_ID: "K2" });
    expect(await verifyTicketToken(token, during)).toMatchObject({ keyId: "K1" });
    expect(await verifyTicketToken(token, after)).toBeNull();
  });
});

describe("signingKeysFromEnv", () => {
  it("reads the current key, default id K1", () => {
    expect(signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_NEW })).toEqual({ current: { id: "K1", secret: SECRET_NEW } });
    expect(signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_NEW, TICKET_SIGNING_KEY_ID: "2026A" })).toEqual({
      current: { id: "2026A", secret: SECRET_NEW },
    });
  });

  it("reads previous keys as KID:secret pairs separated by commas", () => {
    const keys = signingKeysFromEnv({
      TICKET_SIGNING_KEY: SECRET_NEW,
      TICKET_SIGNING_KEY_ID: "K3",
      TICKET_SIGNING_KEYS_PREVIOUS: ` K2:${SECRET_NEW.replace("new", "two")} , K1:${SECRET_OLD},`,
    });
    expect(keys.previous).toEqual([
      { id: "K2", secret: SECRET_NEW.replace("new", "two") },
      { id: "K1", secret: SECRET_OLD },
    ]);
  });

  it("throws a clear error, without the secret, when the configuration is wrong", () => {
    expect(() => signingKeysFromEnv({})).toThrow(/TICKET_SIGNING_KEY is not set/);
    expect(() => signingKeysFromEnv({ TICKET_SIGNING_KEY: "   " })).toThrow(/TICKET_SIGNING_KEY is not set/);
    expect(() => signingKeysFromEnv({ TICKET_SIGNING_KEY: "short-secret" })).toThrow(/shorter than 32/);
    expect(() => signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_NEW, TICKET_SIGNING_KEY_ID: "k1" })).toThrow(/key id/);
    expect(() => signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_NEW, TICKET_SIGNING_KEY_ID: "KEY-1" })).toThrow(/key id/);
    expect(() => signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_NEW, TICKET_SIGNING_KEY_ID: "K123456789" })).toThrow(/key id/);
    const bad = [
      SECRET_OLD, // no id
      `K0:short`,
      `k0:${SECRET_OLD}`,
      `K1:${SECRET_OLD}`, // same id as the current key
      `K0:${SECRET_OLD},K0:${SECRET_OLD}`,
    ];
    for (const previous of bad) {
      let message = "";
      try {
        signingKeysFromEnv({ TICKET_SIGNING_KEY: SECRET_NEW, TICKET_SIGNING_KEYS_PREVIOUS: previous });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/TICKET_SIGNING_KEYS_PREVIOUS/);
      expect(message).not.toContain(SECRET_OLD);
      expect(message).not.toContain(SECRET_NEW);
    }
  });
});
