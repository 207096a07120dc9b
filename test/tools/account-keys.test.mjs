// scripts/account.mjs's OCTO API key commands on a real local D1 (wrangler
// d1 execute --local --persist-to a temporary directory, every migration
// applied): create-key prints a key once and stores only its SHA-256,
// list-keys shows keys without it, revoke-key ends it; what the script
// refuses fails with a clear message and a non-zero exit. About 30 s of
// wrangler calls.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { newAccount, sha256Hex } from "../../tools/lib/accounts.mjs";
import { tempDir } from "../../tools/lib/process-end.mjs";
import { recordingDb as db, sqlScript, statements } from "../../tools/lib/statements.mjs";
import { ROOT, applyMigrations, d1Execute, d1Target } from "../../tools/lib/wrangler.mjs";

const b = statements();

describe("scripts/account.mjs API keys on a local D1", () => {
  const dir = tempDir("museum-account-test-");
  const target = d1Target({ persistTo: dir.path });

  /** Runs the script against the temporary D1: its exit status, stdout and stderr. */
  function runAccount(...args) {
    const run = spawnSync(process.execPath, [join(ROOT, "scripts", "account.mjs"), ...args, "--persist-to", dir.path], { cwd: ROOT, encoding: "utf8" });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  function succeeds(...args) {
    const result = runAccount(...args);
    assert.equal(result.status, 0, result.stderr);
    return result;
  }

  /**
   * Every column of every API key row, as stored, and the account the Worker
   * would authenticate `key` as (its own lookup, selectApiKeyAccount), or null.
   */
  function stored(key = "") {
    const [keys, [account]] = d1Execute(target, {
      command: `SELECT * FROM api_keys ORDER BY key_id;\n${sqlScript([b.accounts.selectApiKeyAccount(db, sha256Hex(key))])}`,
    });
    return { keys, account: account ?? null };
  }

  /** The key and its id that a create-key run printed. */
  function printedKey(run) {
    const key = run.stdout.trim();
    const keyId = /created API key ([0-9a-f]{8}) for /.exec(run.stderr)?.[1];
    assert.ok(keyId, run.stderr);
    return { key, keyId };
  }

  before(() => {
    applyMigrations(target, { quiet: true });
    // A reseller, a gate and a revoked reseller, as the script's create and revoke write them.
    const accounts = ["test-reseller", "test-gate", "test-gone"].map((name) => ({ name, role: name === "test-gate" ? "gate" : "sales", secret: `${name}-secret` }));
    d1Execute(target, { command: sqlScript([...accounts.map((a) => b.accounts.insertAccount(db, newAccount(a))), b.accounts.revokeAccount(db, "test-gone")]) });
  });
  after(() => dir.remove());

  it("create-key prints the key once, on stdout alone, and stores only its SHA-256", () => {
    const run = succeeds("create-key", "test-reseller");
    const { key, keyId } = printedKey(run);
    assert.equal(run.stdout, `${key}\n`);
    assert.match(key, /^[A-Za-z0-9_-]{32}$/);
    assert.ok(!run.stderr.includes(key), "the key is printed once");
    assert.match(run.stderr, new RegExp(`npm run account -- revoke-key ${keyId}`));

    const { keys, account } = stored(key);
    assert.equal(keys.length, 1);
    assert.deepEqual(keys[0], { key_id: keyId, account_name: "test-reseller", key_sha256: sha256Hex(key), created_at: keys[0].created_at, revoked_at: null });
    assert.ok(!Object.values(keys[0]).includes(key));
    assert.deepEqual(account, { key_id: keyId, name: "test-reseller", role: "sales" });

    // A second key is another key, with another id.
    const second = printedKey(succeeds("create-key", "test-reseller"));
    assert.notEqual(second.key, key);
    assert.notEqual(second.keyId, keyId);
    assert.equal(stored().keys.length, 2);
  });

  it("list-keys shows each key's id, account and dates, never the key or its hash; revoke-key ends it", () => {
    const { key, keyId } = printedKey(succeeds("create-key", "test-reseller"));
    const listed = succeeds("list-keys");
    const [header, ...lines] = listed.stdout.trimEnd().split("\n");
    assert.deepEqual(header.split(/\s+/), ["KEY_ID", "ACCOUNT", "CREATED_AT", "REVOKED_AT"]);
    assert.match(lines.find((l) => l.startsWith(`${keyId} `)), new RegExp(`^${keyId}\\s+test-reseller\\s+\\d{4}-\\d\\d-\\d\\dT\\S+\\s+-$`));
    assert.ok(!listed.stdout.includes(key) && !listed.stdout.includes(sha256Hex(key)));

    const revoked = succeeds("revoke-key", keyId);
    assert.match(revoked.stderr, new RegExp(`revoked API key ${keyId} of test-reseller at \\d{4}-\\d\\d-\\d\\dT`));
    const { keys, account } = stored(key);
    assert.equal(account, null);
    assert.equal(lines.length, keys.length);
    const revokedAt = keys.find((k) => k.key_id === keyId).revoked_at;
    assert.match(revokedAt, /^\d{4}-\d\d-\d\dT/);
    assert.ok(keys.every((k) => k.key_id === keyId || k.revoked_at === null), "only that key is revoked");
    assert.match(succeeds("list-keys").stdout, new RegExp(`^${keyId}\\s+test-reseller\\s+\\S+\\s+${revokedAt}$`, "m"));

    // Once revoked, it stays so: a second revocation says when it was.
    const again = runAccount("revoke-key", keyId);
    assert.equal(again.status, 1);
    assert.match(again.stderr, new RegExp(`error: key ${keyId} was already revoked at ${revokedAt}`));
  });

  it("refuses a key for an unknown, a revoked or a non-sales account, and an unknown key id, writing nothing", () => {
    const before = stored().keys;
    for (const [name, message] of [
      ["nobody", /error: no account named nobody in local D1/],
      ["test-gone", /error: test-gone is revoked/],
      ["test-gate", /error: test-gate is a gate account; API keys are for sales accounts/],
    ]) {
      const run = runAccount("create-key", name);
      assert.equal(run.status, 1, name);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, "", "no key printed");
    }
    const unknown = runAccount("revoke-key", "0badc0de");
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /error: no API key 0badc0de in local D1/);
    assert.deepEqual(stored().keys, before);
  });

  it("answers a malformed command line with its usage and exit 2, before touching the database", () => {
    for (const [args, message] of [
      [["create-key"], /error: create-key takes 1 argument/],
      [["create-key", "Not A Name"], /error: invalid account name "Not A Name"/],
      [["create-key", "test-reseller", "--role", "sales"], /error: --role is only for create/],
      [["revoke-key", "NOT-AN-ID!"], /error: invalid key id "NOT-AN-ID!"/],
      [["list-keys", "extra"], /error: list-keys takes no arguments/],
      [["list-keys", "--remote"], /error: --persist-to is for the local D1 only/],
    ]) {
      const run = runAccount(...args);
      assert.equal(run.status, 2, args.join(" "));
      assert.match(run.stderr, message);
      assert.match(run.stderr, /usage: npm run account -- <command>/);
    }
  });

  it("--help says what the key commands do (and does nothing else: test/tools/help.test.mjs)", () => {
    const run = runAccount("create-key", "test-reseller", "--help");
    assert.equal(run.status, 0);
    for (const line of [
      /create-key <name>\s+give a sales account \(a reseller\) an OCTO API key; prints it once/,
      /list-keys\s+key id, account, created_at, revoked_at of every API key/,
      /revoke-key <key-id>\s+revoke an API key \(its requests get 401 from then on\)/,
      /--persist-to <dir>/,
    ]) {
      assert.match(run.stdout, line);
    }
  });
});
