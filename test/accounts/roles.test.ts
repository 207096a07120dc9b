// The scripts (tools/lib/accounts.mjs, plain Node) cannot import the Worker's
// TypeScript, so they keep their own list of account roles: held here to the
// Worker's list, and both to what the accounts table accepts.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ACCOUNT_ROLES } from "../../src/accounts/schemas";
import { sha256Hex } from "../../src/platform/crypto";

const SCRIPTS_ACCOUNTS = Object.values(
  import.meta.glob<string>("../../tools/lib/accounts.mjs", { query: "?raw", import: "default", eager: true }),
)[0]!;

/** An account row written straight to D1, with any role text. */
async function insertAccountRow(name: string, role: string): Promise<void> {
  await env.DB.prepare("INSERT INTO accounts (name, role, secret_sha256) VALUES (?1, ?2, ?3)")
    .bind(name, role, await sha256Hex(name))
    .run();
}

describe("account roles", () => {
  it("the scripts list the Worker's roles", () => {
    const declared = /^export const ACCOUNT_ROLES = (\[[^\]]*\]);$/m.exec(SCRIPTS_ACCOUNTS)?.[1];
    expect(declared, "ACCOUNT_ROLES in tools/lib/accounts.mjs").toBeDefined();
    expect(JSON.parse(declared!)).toEqual([...ACCOUNT_ROLES]);
  });

  it("the accounts table takes each role and no other", async () => {
    for (const role of ACCOUNT_ROLES) await insertAccountRow(`roles-test-${role}`, role);
    await expect(insertAccountRow("roles-test-curator", "curator")).rejects.toThrow(/CHECK constraint failed/);
  });
});
