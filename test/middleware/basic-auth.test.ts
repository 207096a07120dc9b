// HTTP Basic authentication and roles, through the real Worker.
import { describe, expect, it } from "vitest";
import {
  ACCOUNTS,
  api,
  basic,
  basicUtf8,
  createEvent,
  dumpDatabase,
  eventBody,
  expectProblem,
  insertAccount,
  type EventJson,
} from "../support/helpers";

const BASE = "/v1.1/special-events";
const CHALLENGE = 'Basic realm="museum", charset="UTF-8"';
const { admin, sales, revoked } = ACCOUNTS;
// A failed login is meant to be counted (login throttling); nothing else may change.
const snapshot = () => dumpDatabase({ except: ["login_failures"] });

async function expectUnauthorized(res: Response) {
  const problem = await expectProblem(res, 401);
  expect(res.headers.get("WWW-Authenticate")).toBe(CHALLENGE);
  return problem;
}

const BAD_CREDENTIALS: [string, string | undefined][] = [
  ["no Authorization header", undefined],
  ["another scheme", "Bearer some-token"],
  ["Digest", `Digest username="${admin.name}"`],
  ["Basic without credentials", "Basic"],
  ["Basic with a space only", "Basic "],
  ["not base64", "Basic !!!not-base64!!!"],
  ["base64 of impossible length", "Basic a"],
  ["no colon in the decoded value", `Basic ${btoa(`${admin.name}${admin.secret}`)}`],
  ["a wrong password", basic(admin.name, "wrong-password")],
  ["an empty password", basic(admin.name, "")],
  ["the password with a trailing space", basic(admin.name, `${admin.secret} `)],
  ["an unknown user", basic("nobody-at-all", admin.secret)],
  ["an empty user and password", basic("", "")],
  ["the user name in another case", basic(admin.name.toUpperCase(), admin.secret)],
  ["another account's password", basic(admin.name, sales.secret)],
  ["revoked credentials", basic(revoked.name, revoked.secret)],
];

describe("401 for missing or wrong credentials", () => {
  it.each(BAD_CREDENTIALS)("%s (read)", async (_case, authorization) => {
    const res = await api(BASE, { as: null, headers: authorization ? { Authorization: authorization } : {} });
    const problem = await expectUnauthorized(res);
    expect(JSON.stringify(problem)).not.toContain(admin.secret);
  });

  it.each(BAD_CREDENTIALS)("%s (write: nothing is written)", async (_case, authorization) => {
    const before = await snapshot();
    const res = await api(BASE, {
      method: "POST",
      as: null,
      json: eventBody(),
      headers: authorization ? { Authorization: authorization } : {},
    });
    await expectUnauthorized(res);
    expect(await snapshot()).toBe(before);
  });

  it("guards every special-events operation", async () => {
    const event = await createEvent();
    const before = await snapshot();
    for (const [method, path, json] of [
      ["GET", BASE, undefined],
      ["GET", `${BASE}/${event.eventId}`, undefined],
      ["POST", BASE, eventBody()],
      ["PATCH", `${BASE}/${event.eventId}`, { name: "Hijacked" }],
      ["DELETE", `${BASE}/${event.eventId}`, undefined],
      ["GET", "/v1.1/no-such-operation", undefined],
    ] as const) {
      const res = await api(path, { method, as: null, json });
      const problem = await expectUnauthorized(res);
      expect(JSON.stringify(problem)).not.toContain(event.name);
    }
    expect(await snapshot()).toBe(before);
  });

  it("says the same for an unknown user as for a wrong password (no user-name oracle)", async () => {
    const unknownUser = await expectUnauthorized(await api(BASE, { as: null, headers: { Authorization: basic("nobody-at-all", "x") } }));
    const wrongPassword = await expectUnauthorized(await api(BASE, { as: null, headers: { Authorization: basic(admin.name, "x") } }));
    const revokedUser = await expectUnauthorized(await api(BASE, { as: null, headers: { Authorization: basic(revoked.name, revoked.secret) } }));
    expect(unknownUser.detail).toBe(wrongPassword.detail);
    expect(revokedUser.detail).toBe(wrongPassword.detail);
    expect(unknownUser.title).toBe(wrongPassword.title);
  });
});

describe("accepted credentials", () => {
  it("admin and sales, with the scheme name in any case", async () => {
    for (const authorization of [
      basic(admin.name, admin.secret),
      basic(sales.name, sales.secret),
      `basic ${btoa(`${admin.name}:${admin.secret}`)}`,
      `BASIC ${btoa(`${sales.name}:${sales.secret}`)}`,
    ]) {
      const res = await api(BASE, { as: null, headers: { Authorization: authorization } });
      expect(res.status).toBe(200);
    }
  });

  it("a password that contains colons (only the first colon separates)", async () => {
    await insertAccount("colon-user", "pa:ss:word:", "sales");
    expect((await api(BASE, { as: null, headers: { Authorization: basic("colon-user", "pa:ss:word:") } })).status).toBe(200);
    await expectUnauthorized(await api(BASE, { as: null, headers: { Authorization: basic("colon-user", "pa") } }));
  });

  it("user names and passwords in UTF-8, as the challenge's charset says", async () => {
    await insertAccount("mus\u00e9e-kasse", "geheim-\u00fc-\u{1F511}", "sales");
    const utf8 = basicUtf8("mus\u00e9e-kasse", "geheim-\u00fc-\u{1F511}");
    expect((await api(BASE, { as: null, headers: { Authorization: utf8 } })).status).toBe(200);
    // The same name sent as Latin-1 bytes is another name.
    const latin1 = `Basic ${btoa("mus\u00e9e-kasse:x")}`;
    await expectUnauthorized(await api(BASE, { as: null, headers: { Authorization: latin1 } }));
  });
});

describe("roles", () => {
  it("sales may list and read events", async () => {
    const event = await createEvent({ dates: ["2097-04-04"] });
    const one = await api(`${BASE}/${event.eventId}`, { as: "sales" });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(event);
    const list = await api(`${BASE}?startDate=2097-04-04&endDate=2097-04-04`, { as: "sales" });
    expect(list.status).toBe(200);
    expect(((await list.json()) as EventJson[]).map((e) => e.eventId)).toContain(event.eventId);
  });

  it("sales gets 403 on creating, changing or deleting an event, and nothing is written", async () => {
    const event = await createEvent();
    const before = await snapshot();
    const attempts: [string, string, unknown][] = [
      ["POST", BASE, eventBody()],
      ["POST", BASE, { name: "" }], // the role is checked before the body
      ["PATCH", `${BASE}/${event.eventId}`, { name: "Renamed by sales" }],
      ["PATCH", `${BASE}/${event.eventId}`, {}],
      ["PATCH", `${BASE}/${crypto.randomUUID()}`, { name: "x" }], // no hint whether it exists
      ["DELETE", `${BASE}/${event.eventId}`, undefined],
      ["DELETE", `${BASE}/${crypto.randomUUID()}`, undefined],
    ];
    for (const [method, path, json] of attempts) {
      const res = await api(path, { method, as: "sales", json });
      const problem = await expectProblem(res, 403);
      expect(res.headers.get("WWW-Authenticate")).toBeNull();
      expect(problem.type).toBe("about:blank");
    }
    expect(await snapshot()).toBe(before);
    expect(await (await api(`${BASE}/${event.eventId}`)).json()).toEqual(event);
  });

  it("admin may create, change and delete", async () => {
    const event = await createEvent();
    expect((await api(`${BASE}/${event.eventId}`, { method: "PATCH", json: { price: 1 } })).status).toBe(200);
    expect((await api(`${BASE}/${event.eventId}`, { method: "DELETE" })).status).toBe(204);
  });
});
