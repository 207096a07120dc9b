// The one login flow (src/middleware/login) through both of its doors, HTTP
// Basic on /v1.1 and a Bearer API key on /octo: the isolate's memory of
// verified logins, per client and per credential, and what a failed login
// does to it.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { AccountRole } from "../../src/accounts/schemas";
import { sha256Hex } from "../../src/platform/crypto";
import { useClock } from "../support/clock";
import { api, basic, insertAccount, testClientIp } from "../support/helpers";
import { roundTripsOf } from "../support/round-trips";

/** A credential made for one test: its Authorization header, and how to revoke it. */
type Credential = { authorization: string; revoke(): Promise<void> };

type Door = {
  name: string;
  /** A new credential of a new account with `role`. */
  issue(role: AccountRole): Promise<Credential>;
  /** A well-formed credential that is nobody's. */
  wrong: string;
  /** A route of this door: `200` for a sales account, `403` for a gate's. */
  path: string;
};

const newName = () => `test-login-${crypto.randomUUID()}`;

const DOORS: Door[] = [
  {
    name: "Basic",
    async issue(role) {
      const name = newName();
      const secret = `secret-${crypto.randomUUID()}`;
      await insertAccount(name, secret, role);
      return {
        authorization: basic(name, secret),
        revoke: async () => void (await env.DB.prepare("UPDATE accounts SET revoked_at = '2026-01-01T00:00:00Z' WHERE name = ?1").bind(name).run()),
      };
    },
    wrong: basic("nobody-at-all", "not-a-secret"),
    path: "/v1.1/museum-hours",
  },
  {
    name: "Bearer",
    async issue(role) {
      const name = newName();
      const keyId = `t-${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
      const key = `key-${crypto.randomUUID()}`;
      await insertAccount(name, `basic-${crypto.randomUUID()}`, role);
      await env.DB.prepare("INSERT INTO api_keys (key_id, account_name, key_sha256) VALUES (?1, ?2, ?3)").bind(keyId, name, await sha256Hex(key)).run();
      return {
        authorization: `Bearer ${key}`,
        revoke: async () => void (await env.DB.prepare("UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00Z' WHERE key_id = ?1").bind(keyId).run()),
      };
    },
    wrong: "Bearer not-a-key-of-anyone-000000000000",
    path: "/octo/supplier",
  },
];

describe.each(DOORS)("$name: the login memory", (door) => {
  const send = async (client: string, authorization: string) => {
    const res = await api(door.path, { as: null, headers: { "CF-Connecting-IP": client, Authorization: authorization } });
    await res.arrayBuffer();
    return res.status;
  };
  const measured = async (client: string, authorization: string) => {
    const { res, roundTrips } = await roundTripsOf(() => api(door.path, { as: null, headers: { "CF-Connecting-IP": client, Authorization: authorization } }));
    expect(res.status).toBe(200);
    return roundTrips;
  };

  it("a login verified a moment ago makes no D1 round trip the next time, from the same client only", async () => {
    const credential = await door.issue("sales");
    // The route's own work warmed up first, so only the login differs below.
    expect(await send(testClientIp(), credential.authorization)).toBe(200);
    const client = testClientIp();
    const first = await measured(client, credential.authorization);
    // The read under the throttle's count, then the forgiveness.
    expect(await measured(client, credential.authorization)).toBe(first - 2);
    expect(await measured(testClientIp(), credential.authorization)).toBe(first);
  });

  it("two credentials from one client are remembered apart, each as its own account", async () => {
    const seller = await door.issue("sales");
    const gate = await door.issue("gate");
    const client = testClientIp();
    for (let round = 0; round < 2; round++) {
      expect(await send(client, seller.authorization)).toBe(200);
      expect(await send(client, gate.authorization)).toBe(403);
    }
  });

  it("a revoked credential is refused at once to other clients; a failed login makes its client forget it too", async () => {
    const credential = await door.issue("sales");
    const client = testClientIp();
    expect(await send(client, credential.authorization)).toBe(200);
    await credential.revoke();
    expect(await send(testClientIp(), credential.authorization)).toBe(401);
    // Remembered for up to a minute (SECURITY.md): the trade-off of the memory.
    expect(await send(client, credential.authorization)).toBe(200);
    expect(await send(client, door.wrong)).toBe(401);
    expect(await send(client, credential.authorization)).toBe(401);
  });

  it("a login is remembered for a minute from when it was verified, not longer", async () => {
    const credential = await door.issue("sales");
    const client = testClientIp();
    const verifiedAt = Date.now();
    useClock(new Date(verifiedAt).toISOString());
    expect(await send(client, credential.authorization)).toBe(200);
    await credential.revoke();
    vi.setSystemTime(verifiedAt + 59_000);
    expect(await send(client, credential.authorization)).toBe(200);
    vi.setSystemTime(verifiedAt + 60_000);
    expect(await send(client, credential.authorization)).toBe(401);
  });
});
