// Ticket codes checked outside the Worker, in Node: codes signed by the
// Worker's own code (src/ticket-image, bundled by esbuild) with the local key
// set of .dev.vars.example verify with `jose` (a JOSE library the Worker does
// not use) from the JWK Set alone, and the client's reference verifier judges
// them as the service does. Run by `npm test` (node --test test/tools/).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseEnv } from "node:util";
import { after, before, describe, it } from "node:test";
import { build } from "esbuild";
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from "jose";
import { base64url, checkTicketCode, invalidClaim, verifyTicketCode as verifyOffline, verifyTicketCodeWith } from "museum-api-client/gate";
import { ticketIdOfCode } from "../../tools/lib/ticket-qr.mjs";
import { keySetProblems, publicKeySet as toolsPublicKeySet } from "../../tools/lib/code-keys.mjs";
import { tempDir } from "../../tools/lib/process-end.mjs";
import { ROOT } from "../../tools/lib/wrangler.mjs";

const NOW = new Date("2026-12-01T15:00:00Z"); // Tuesday 10:00 in New York
const GENERAL = { ticketId: "b811f723-17b2-44f7-8952-24b03e43d8a9", ticketType: "general", ticketDate: "2026-12-01", category: "adult" };
const TIMED = { ...GENERAL, ticketId: "0f7e3a52-2c1b-4f0e-9a53-7c8d2b1e4f60", entryTime: "11:00" };
const EVENT = {
  ticketId: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
  ticketType: "event",
  ticketDate: "2026-12-01",
  category: "adult",
  eventId: "3be6453c-03eb-4357-ae5a-984a0e574a54",
};
/** GET /gate/config as the service answers it on that day (the seeded week). */
const CONFIG = {
  timeZone: "America/New_York",
  admissionEarlyMinutes: 15,
  categories: [{ categoryId: "adult", name: "Adult" }],
  days: [
    { date: "2026-12-01", timeOpen: "09:00", timeClose: "18:00" },
    { date: "2026-12-02", timeOpen: "09:00", timeClose: "18:00" },
  ],
};
/** The same with timed entry on the 1st (hourly slots), as when the timed ticket was sold. */
const TIMED_CONFIG = {
  ...CONFIG,
  days: CONFIG.days.map((day) =>
    day.date === "2026-12-01" ? { ...day, entrySlots: ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00", "17:00"] } : day,
  ),
};

const localKeys = parseEnv(readFileSync(join(ROOT, ".dev.vars.example"), "utf8")).TICKET_CODE_KEYS;
const dir = tempDir("gate-codes-test-");
let worker;
let keys;
let jwks;
const codes = {};

before(async () => {
  const outfile = join(dir.path, "codes.mjs");
  await build({
    stdin: {
      contents: `export * from "./src/ticket-image/token.ts"; export * from "./src/configuration/code-keys.ts"; export * from "./src/ticket-image/code-keys.ts";`,
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
  worker = await import(pathToFileURL(outfile).href);
  keys = worker.codeKeysFromEnv({ TICKET_CODE_KEYS: localKeys });
  jwks = worker.publicKeySet(keys);
  const signer = worker.codeSignerAt(keys, NOW);
  for (const [name, ticket] of Object.entries({ GENERAL, TIMED, EVENT })) codes[name] = await worker.signTicketCode(ticket, signer);
});
after(() => dir.remove());

const b64url = (text) => Buffer.from(text).toString("base64url");

describe("the local key set", () => {
  it("is usable, and the tools publish it as the Worker does", () => {
    assert.deepEqual(keySetProblems(JSON.parse(localKeys), NOW.getTime()), []);
    assert.deepEqual(toolsPublicKeySet(JSON.parse(localKeys)), jwks);
    assert.equal(JSON.stringify(jwks).includes('"d"'), false);
  });
});

describe("jose verifies the Worker's codes from the JWK Set alone", () => {
  it("checks the signature and reads exactly the contract's header and payload", async () => {
    const keySet = createLocalJWKSet(jwks);
    for (const [name, ticket] of Object.entries({ GENERAL, TIMED, EVENT })) {
      const code = codes[name];
      assert.ok(code.length <= 350, `${name}: ${code.length} characters`);
      assert.deepEqual(decodeProtectedHeader(code), { alg: "EdDSA", kid: "L1" });
      const { payload, protectedHeader } = await compactVerify(code, keySet, { algorithms: ["EdDSA", "Ed25519"] });
      assert.deepEqual(protectedHeader, { alg: "EdDSA", kid: "L1" });
      const expected = {
        tid: ticket.ticketId,
        typ: ticket.ticketType,
        date: ticket.ticketDate,
        cat: ticket.category,
        ...(ticket.eventId ? { eid: ticket.eventId } : {}),
        ...(ticket.entryTime ? { ent: ticket.entryTime } : {}),
      };
      assert.deepEqual(JSON.parse(new TextDecoder().decode(payload)), expected);
    }
  });

  it("refuses what the Worker refuses: an altered payload, alg none, an unknown kid", async () => {
    const keySet = createLocalJWKSet(jwks);
    const [header, payload, signature] = codes.GENERAL.split(".");
    const forged = [
      `${header}.${b64url('{"tid":"b811f723-17b2-44f7-8952-24b03e43d8a9","typ":"general","date":"2026-12-02","cat":"adult"}')}.${signature}`,
      `${b64url('{"alg":"none","kid":"L1"}')}.${payload}.`,
      `${b64url('{"alg":"EdDSA","kid":"L9"}')}.${payload}.${signature}`,
    ];
    for (const code of forged) {
      await assert.rejects(compactVerify(code, keySet, { algorithms: ["EdDSA", "Ed25519"] }), undefined, code);
      assert.equal(await worker.verifyTicketCode(code, keys), null);
      assert.equal(await verifyOffline(code, jwks), null);
    }
  });
});

describe("the reference verifier (clients/typescript) on the Worker's codes", () => {
  const check = (code, now, revoked = [], config = CONFIG) => checkTicketCode({ code, keys: jwks, config, revoked, now: new Date(now) });

  it("reads the same claims as the Worker (and the tools read the ticket id)", async () => {
    assert.equal(ticketIdOfCode(codes.EVENT), EVENT.ticketId);
    assert.throws(() => ticketIdOfCode(`${b64url("{}")}.${b64url("{}")}.x`), /not a ticket code/);
    for (const code of Object.values(codes)) {
      assert.deepEqual(await verifyOffline(code, jwks), await worker.verifyTicketCode(code, keys));
    }
  });

  it("answers admitted, not-valid-today, too-early, too-late and revoked as the service would", async () => {
    const { GENERAL: general, TIMED: timed, EVENT: event } = codes;
    assert.deepEqual(await check(general, "2026-12-01T15:00:00Z"), { outcome: "admitted", ...GENERAL });
    assert.equal((await check(general, "2026-12-01T22:59:00Z")).outcome, "admitted"); // 17:59
    assert.deepEqual(await check(general, "2026-12-01T23:00:00Z"), { outcome: "too-late", ...GENERAL, timeClose: "18:00" });
    assert.equal((await check(event, "2026-12-02T04:59:00Z")).outcome, "admitted"); // 23:59 on the 1st
    assert.equal((await check(general, "2026-12-02T15:00:00Z")).outcome, "not-valid-today");
    assert.equal((await check(general, "2026-12-01T04:59:00Z")).outcome, "not-valid-today"); // still the 30th in New York
    assert.equal((await check(timed, "2026-12-01T15:44:00Z", [], TIMED_CONFIG)).outcome, "too-early"); // 10:44, entry 11:00
    assert.equal((await check(timed, "2026-12-01T15:45:00Z", [], TIMED_CONFIG)).outcome, "admitted");
    assert.equal((await check(timed, "2026-12-01T23:00:00Z", [], TIMED_CONFIG)).outcome, "too-late");
    // Timed entry turned off for the day: a timed ticket is admitted all day, until closing.
    assert.equal((await check(timed, "2026-12-01T15:44:00Z")).outcome, "admitted");
    assert.equal((await check(timed, "2026-12-01T23:00:00Z")).outcome, "too-late");
    assert.equal((await check(general, "2026-12-01T15:00:00Z", new Set([GENERAL.ticketId]))).outcome, "revoked");
    // Revoked first: a cancelled ticket is never admitted, whatever its date (as the service's 409).
    assert.equal((await check(general, "2026-12-05T15:00:00Z", [GENERAL.ticketId])).outcome, "revoked");
    for (const code of ["", "hello", codes.GENERAL.slice(0, -3), `${codes.GENERAL} `]) {
      assert.deepEqual(await check(code, "2026-12-01T15:00:00Z"), { outcome: "invalid-ticket-code" });
    }
  });

  it("verifies a code in well under 1 ms of CPU, the Worker's verifier and the reference one alike", async () => {
    for (const verify of [(code) => worker.verifyTicketCode(code, keys), (code) => verifyOffline(code, jwks)]) {
      await verify(codes.EVENT); // keys imported once
      const rounds = 500;
      const started = process.cpuUsage();
      for (let i = 0; i < rounds; i++) assert.ok(await verify(codes.EVENT));
      const { user, system } = process.cpuUsage(started);
      const perCode = (user + system) / 1000 / rounds;
      assert.ok(perCode < 1, `${perCode.toFixed(3)} ms of CPU a code`);
    }
  });
});

describe("the reader the Worker and the gate share (museum-api-client/gate)", () => {
  it("verifyTicketCodeWith asks the caller for the key of the code's kid, and refuses what that key did not sign", async () => {
    const ed25519 = { name: "Ed25519" };
    const publicKey = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: jwks.keys[0].x }, ed25519, false, ["verify"]);
    const expected = await verifyOffline(codes.TIMED, jwks);
    assert.deepEqual(expected, { tid: TIMED.ticketId, typ: "general", date: TIMED.ticketDate, cat: TIMED.category, ent: TIMED.entryTime, kid: "L1" });
    const asked = [];
    assert.deepEqual(await verifyTicketCodeWith(codes.TIMED, (kid) => (asked.push(kid), publicKey)), expected);
    assert.deepEqual(asked, ["L1"]);
    assert.deepEqual(await verifyTicketCodeWith(codes.TIMED, async () => publicKey), expected);
    const otherKey = (await crypto.subtle.generateKey(ed25519, false, ["sign", "verify"])).publicKey;
    const hmacKey = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    for (const verifierOf of [() => undefined, () => otherKey, () => hmacKey, () => Promise.reject(new Error("key store down"))]) {
      assert.equal(await verifyTicketCodeWith(codes.TIMED, verifierOf), null);
    }
    const [, payload, signature] = codes.TIMED.split(".");
    const noneAsked = [];
    assert.equal(await verifyTicketCodeWith(`${b64url('{"alg":"HS256","kid":"L1"}')}.${payload}.${signature}`, (kid) => (noneAsked.push(kid), publicKey)), null);
    assert.deepEqual(noneAsked, [], "no key is looked up for a header of another alg");
  });

  it("invalidClaim names the first claim the service would not write", () => {
    const good = { tid: GENERAL.ticketId, typ: "general", date: "2026-12-01", cat: "adult" };
    for (const claims of [good, { ...good, ent: "11:00" }, { ...good, typ: "event", eid: EVENT.eventId }, { ...good, date: "2028-02-29" }]) {
      assert.equal(invalidClaim(claims), null, JSON.stringify(claims));
    }
    const cases = [
      [{ ...good, tid: GENERAL.ticketId.toUpperCase() }, "tid"],
      [{ ...good, tid: 1, typ: "museum" }, "tid"],
      [{ ...good, typ: "Event" }, "typ"],
      [{ ...good, date: "2026-02-29" }, "date"],
      [{ ...good, date: "2026-12-1" }, "date"],
      [{ ...good, cat: "Adult" }, "cat"],
      [{ ...good, cat: "a".repeat(21) }, "cat"],
      [{ ...good, typ: "event" }, "eid"],
      [{ ...good, eid: EVENT.eventId }, "eid"],
      [{ ...good, typ: "event", eid: 42 }, "eid"],
      [{ ...good, ent: "24:00" }, "ent"],
      [{ ...good, ent: "9:00" }, "ent"],
      [{ ...good, typ: "event", eid: EVENT.eventId, ent: "11:00" }, "ent"],
    ];
    for (const [claims, name] of cases) assert.equal(invalidClaim(claims), name, JSON.stringify(claims));
  });

  it("base64url writes unpadded RFC 4648 §5 text", () => {
    for (const bytes of [[], [251], [251, 255], [0, 1, 2, 3, 254, 255, 62, 63]]) {
      assert.equal(base64url(new Uint8Array(bytes)), Buffer.from(bytes).toString("base64url"));
    }
  });
});
