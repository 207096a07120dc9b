// Ticket codes: compact JWS over Ed25519 (contract: "Gates that keep working
// offline"), their key set, and every forgery a gate must refuse.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type CodeKeySet, configurationOf, configurationProblems } from "../../src/configuration";
import { codeKeysFromEnv } from "../../src/configuration/code-keys";
import { MAX_CODE_LENGTH, codeSignerAt, publicKeySet, signTicketCode, verifyTicketCode } from "../../src/ticket-image";
import { TEST_CODE_KEYS } from "../support/code-keys";
import { EVENT_TICKET, GENERAL_TICKET } from "./fixtures";

const [T1, T2] = TEST_CODE_KEYS as [(typeof TEST_CODE_KEYS)[0], (typeof TEST_CODE_KEYS)[0]];
const NOW = new Date("2026-12-01T12:00:00Z");
const keySet = (...keys: object[]) => codeKeysFromEnv({ TICKET_CODE_KEYS: JSON.stringify({ keys }) });
const KEYS = keySet(T1, T2);
const SIGNER = codeSignerAt(KEYS, NOW);

const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const unb64url = (text: string) => atob(text.replace(/-/g, "+").replace(/_/g, "/"));
const partsOf = (code: string) => code.split(".") as [string, string, string];

/** Signs `header.payload` (raw JSON texts) with a key's private half, as a forger holding that key would. */
async function signRaw(header: string, payload: string, key: { x: string; d: string }): Promise<string> {
  const privateKey = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: key.x, d: key.d }, { name: "Ed25519" }, false, ["sign"]);
  const input = `${b64url(header)}.${b64url(payload)}`;
  const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", privateKey, new TextEncoder().encode(input)));
  return `${input}.${b64url(String.fromCharCode(...signature))}`;
}

async function expectRefused(keys: CodeKeySet, ...codes: string[]) {
  for (const code of codes) expect(await verifyTicketCode(code, keys), code).toBeNull();
}

describe("signTicketCode", () => {
  it("writes exactly the contract's header and payload, and nothing of the buyer", async () => {
    const code = await signTicketCode({ ...EVENT_TICKET, email: "buyer@example.com", phone: "+1 555" } as typeof EVENT_TICKET, SIGNER);
    const [header, payload, signature] = partsOf(code);
    expect(unb64url(header)).toBe('{"alg":"EdDSA","kid":"T1"}');
    expect(JSON.parse(unb64url(payload))).toEqual({
      tid: EVENT_TICKET.ticketId,
      typ: "event",
      date: "2023-09-05",
      cat: "child",
      eid: EVENT_TICKET.eventId,
    });
    expect(unb64url(payload)).not.toMatch(/buyer|555|ticket-event/);
    expect(signature).toHaveLength(86);
    expect(code).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    // Deterministic: one ticket and key, one code.
    expect(await signTicketCode(EVENT_TICKET, SIGNER)).toBe(code);
  });

  it("names the entry time of a timed ticket, and stays within 350 characters at the longest", async () => {
    const timed = await signTicketCode({ ...GENERAL_TICKET, entryTime: "10:30" }, SIGNER);
    expect(JSON.parse(unb64url(partsOf(timed)[1]))).toEqual({ tid: GENERAL_TICKET.ticketId, typ: "general", date: "2023-09-07", cat: "adult", ent: "10:30" });
    const longKid = codeSignerAt(keySet({ ...T1, kid: "K2026-12" }), NOW);
    const longest = await signTicketCode({ ...EVENT_TICKET, category: "a".repeat(20) }, longKid);
    expect(longest.length).toBeLessThanOrEqual(MAX_CODE_LENGTH);
    const longestTimed = await signTicketCode({ ...GENERAL_TICKET, category: "a".repeat(20), entryTime: "23:45" }, longKid);
    expect(longestTimed.length).toBeLessThan(longest.length);
    expect(MAX_CODE_LENGTH).toBe(350);
  });

  it("refuses a ticket no code can name", async () => {
    await expect(signTicketCode({ ...GENERAL_TICKET, ticketId: "nope" }, SIGNER)).rejects.toThrow(/ticketId/);
    await expect(signTicketCode({ ...GENERAL_TICKET, ticketDate: "2023-02-30" }, SIGNER)).rejects.toThrow(/ticketDate/);
    await expect(signTicketCode({ ...GENERAL_TICKET, category: "Adult" }, SIGNER)).rejects.toThrow(/category/);
    await expect(signTicketCode({ ...EVENT_TICKET, eventId: undefined }, SIGNER)).rejects.toThrow(/eventId/);
    await expect(signTicketCode({ ...GENERAL_TICKET, entryTime: "9:00" }, SIGNER)).rejects.toThrow(/entryTime/);
    await expect(signTicketCode({ ...EVENT_TICKET, entryTime: "10:00" }, SIGNER)).rejects.toThrow(/entryTime/);
  });
});

describe("verifyTicketCode", () => {
  it("answers the claims of a genuine code, with alg EdDSA or Ed25519", async () => {
    const code = await signTicketCode(EVENT_TICKET, SIGNER);
    const claims = { tid: EVENT_TICKET.ticketId, typ: "event", date: "2023-09-05", cat: "child", eid: EVENT_TICKET.eventId };
    expect(await verifyTicketCode(code, KEYS)).toEqual({ ...claims, kid: "T1" });
    const fullySpecified = await signRaw('{"alg":"Ed25519","kid":"T1"}', JSON.stringify(claims), T1);
    expect(await verifyTicketCode(fullySpecified, KEYS)).toEqual({ ...claims, kid: "T1" });
  });

  it("refuses altered, truncated and re-spelled codes", async () => {
    const code = await signTicketCode(GENERAL_TICKET, SIGNER);
    const [header, payload, signature] = partsOf(code);
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const altered = Array.from({ length: code.length }, (_, i) => i)
      .filter((i) => code[i] !== ".")
      .map((i) => flip(code, i));
    await expectRefused(KEYS, ...altered);
    await expectRefused(KEYS, ...Array.from({ length: code.length }, (_, n) => code.slice(0, n)));
    await expectRefused(
      KEYS,
      `${code}.`,
      `${code}A`,
      ` ${code}`,
      `${code}\n`,
      `${header}.${payload}`,
      `${header}..${signature}`,
      `${header}.${payload}.${signature}=`,
      `${header}==.${payload}.${signature}`,
      `${header}.${payload}.${signature.slice(0, 40)}+/${signature.slice(42)}`,
      // The same bytes, non-canonical base64url: the last character's unused bits set.
      `${header}.${payload}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`,
      "",
      "x".repeat(400),
    );
  });

  it("refuses alg none, HS256 (the public key as an HMAC secret) and any other alg", async () => {
    const payload = JSON.stringify({ tid: GENERAL_TICKET.ticketId, typ: "general", date: "2023-09-07", cat: "adult" });
    const none = `${b64url('{"alg":"none","kid":"T1"}')}.${b64url(payload)}.`;
    const hmacKey = await crypto.subtle.importKey("raw", new TextEncoder().encode(T1.x), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const hsInput = `${b64url('{"alg":"HS256","kid":"T1"}')}.${b64url(payload)}`;
    const hsSignature = new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(hsInput)));
    const hs256 = `${hsInput}.${b64url(String.fromCharCode(...hsSignature))}`;
    const others = await Promise.all(
      ["ES256", "RS256", "EdDSA ", "eddsa", "ED25519"].map((alg) => signRaw(JSON.stringify({ alg, kid: "T1" }), payload, T1)),
    );
    await expectRefused(KEYS, none, `${none}AAAA`, hs256, ...others);
  });

  it("refuses an unknown kid, a key outside the set, and a header with a member more or less", async () => {
    const payload = JSON.stringify({ tid: GENERAL_TICKET.ticketId, typ: "general", date: "2023-09-07", cat: "adult" });
    const stranger = { x: "_3YKx6Yd-Vq1k7Ry6pTqQMx9lJ9FNGm1mzW5Yx5lx3Q", d: "" };
    const { privateKey } = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", privateKey)) as JsonWebKey;
    Object.assign(stranger, { x: jwk.x, d: jwk.d });
    await expectRefused(
      KEYS,
      await signRaw('{"alg":"EdDSA","kid":"T9"}', payload, T1),
      await signRaw('{"alg":"EdDSA","kid":"T1"}', payload, stranger),
      await signRaw('{"alg":"EdDSA","kid":"T2"}', payload, T1),
      await signRaw('{"alg":"EdDSA"}', payload, T1),
      await signRaw('{"alg":"EdDSA","kid":"T1","typ":"JWT"}', payload, T1),
      await signRaw('{"alg":"EdDSA","kid":"T1","crit":["exp"]}', payload, T1),
      await signRaw('{"alg":"EdDSA","kid":1}', payload, T1),
      await signRaw('["EdDSA","T1"]', payload, T1),
    );
    // T2 is in the set (published ahead): a code it signs verifies.
    expect(await verifyTicketCode(await signRaw('{"alg":"EdDSA","kid":"T2"}', payload, T2), KEYS)).toMatchObject({ kid: "T2" });
  });

  it("refuses a payload with a member more or less, or a value out of shape", async () => {
    const base = { tid: GENERAL_TICKET.ticketId, typ: "general", date: "2023-09-07", cat: "adult" };
    const header = '{"alg":"EdDSA","kid":"T1"}';
    const { tid: _tid, ...noTid } = base;
    const { cat: _cat, ...noCat } = base;
    const payloads: unknown[] = [
      { ...base, email: "buyer@example.com" },
      { ...base, exp: 1 },
      noTid,
      noCat,
      { ...base, typ: "event" },
      { ...base, eid: EVENT_TICKET.eventId },
      { ...base, tid: base.tid.toUpperCase() },
      { ...base, date: "2023-02-30" },
      { ...base, cat: "" },
      { ...base, ent: "25:00" },
      { ...base, typ: "event", eid: EVENT_TICKET.eventId, ent: "10:00" },
      { ...base, typ: "vip" },
      [base],
      "ticket",
    ];
    for (const payload of payloads) await expectRefused(KEYS, await signRaw(header, JSON.stringify(payload), T1));
    expect(await verifyTicketCode(await signRaw(header, JSON.stringify({ ...base, ent: "09:30" }), T1), KEYS)).toMatchObject({ ent: "09:30" });
  });
});

describe("TICKET_CODE_KEYS", () => {
  it("signs with the latest key whose signsFrom has come; publishes every key without its private part", () => {
    expect(codeSignerAt(KEYS, NOW).kid).toBe("T1");
    expect(codeSignerAt(KEYS, new Date("2999-01-01T00:00:00Z")).kid).toBe("T2");
    expect(codeSignerAt(keySet(T1, { ...T2, signsFrom: "2026-11-30T00:00:00Z" }), NOW).kid).toBe("T2");
    const published = publicKeySet(KEYS);
    expect(published).toEqual({
      keys: [
        { kty: "OKP", crv: "Ed25519", x: T1.x, kid: "T1", alg: "EdDSA", use: "sig" },
        { kty: "OKP", crv: "Ed25519", x: T2.x, kid: "T2", alg: "EdDSA", use: "sig" },
      ],
    });
    expect(JSON.stringify(published)).not.toContain(T1.d);
  });

  it("keeps a key without d for verifying only", async () => {
    const { d: _d, ...verifyOnly } = { ...T2, signsFrom: "2026-11-30T00:00:00Z" };
    const keys = keySet(T1, verifyOnly);
    expect(codeSignerAt(keys, NOW).kid).toBe("T1");
    const payload = JSON.stringify({ tid: GENERAL_TICKET.ticketId, typ: "general", date: "2023-09-07", cat: "adult" });
    expect(await verifyTicketCode(await signRaw('{"alg":"EdDSA","kid":"T2"}', payload, T2), keys)).toMatchObject({ kid: "T2" });
  });

  it("names what is wrong, never a key's value", () => {
    const problems: [string | undefined, RegExp][] = [
      [undefined, /TICKET_CODE_KEYS is not set/],
      ["  ", /TICKET_CODE_KEYS is not set/],
      ["{", /not JSON/],
      ['{"keys":[]}', /no keys/],
      [JSON.stringify([T1]), /no keys/],
      [JSON.stringify({ keys: [{ ...T1, crv: "P-256" }] }), /key 1: kty must be/],
      [JSON.stringify({ keys: [{ ...T1, kid: "much-too-long" }] }), /key 1: kid/],
      [JSON.stringify({ keys: [{ ...T1, x: "short" }] }), /key 1 \(T1\): x/],
      [JSON.stringify({ keys: [T1, { ...T2, d: 42 }] }), /key 2 \(T2\): d/],
      [JSON.stringify({ keys: [{ ...T1, signsFrom: "soon" }] }), /signsFrom/],
      [JSON.stringify({ keys: [T1, { ...T2, kid: "T1" }] }), /kid is used twice/],
      [JSON.stringify({ keys: [{ ...T1, d: undefined }] }), /no key has its private part/],
    ];
    for (const [value, message] of problems) {
      expect(() => codeKeysFromEnv({ TICKET_CODE_KEYS: value })).toThrow(message);
      const problem = configurationOf({ TICKET_CODE_KEYS: value }).codeKeys.problem;
      expect(problem).toMatch(message);
      expect(problem).not.toContain(T1.d);
    }
    // What /healthz lists: the same problems, and a set none of whose keys signs yet.
    const problemsWith = (keys: object[]) => configurationProblems(configurationOf({ ...env, TICKET_CODE_KEYS: JSON.stringify({ keys }) }), NOW);
    expect(problemsWith([T2])).toEqual([expect.stringMatching(/none signs now/)]);
    expect(problemsWith([T1, T2])).toEqual([]);
  });
});
