// tools/lib/statements.mjs: the builders bundled for Node and their
// statements rendered as SQL text for `wrangler d1 execute` (no D1 needed
// here; test/tools/seed.test.mjs runs rendered statements on a local D1).
// Run by `npm test` (node --test test/tools/).
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createRequire } from "node:module";
import { sha256Hex } from "../../tools/lib/accounts.mjs";
import { tempDir } from "../../tools/lib/process-end.mjs";
import { recordingDb, renderSql, renderStatement, sqlLiteral, sqlScript, statements } from "../../tools/lib/statements.mjs";
import { ROOT } from "../../tools/lib/wrangler.mjs";

describe("sqlLiteral", () => {
  it("renders values as D1 binds them", () => {
    assert.equal(sqlLiteral("plain"), "'plain'");
    assert.equal(sqlLiteral("it's 'quoted'"), "'it''s ''quoted'''");
    assert.equal(sqlLiteral(""), "''");
    assert.equal(sqlLiteral("?; -- /* not SQL */"), "'?; -- /* not SQL */'");
    assert.equal(sqlLiteral(42), "42");
    assert.equal(sqlLiteral(-7), "-7");
    assert.equal(sqlLiteral(12.5), "12.5");
    assert.equal(sqlLiteral(1e-7), "1e-7");
    assert.equal(sqlLiteral(null), "NULL");
    assert.equal(sqlLiteral(true), "1");
    assert.equal(sqlLiteral(false), "0");
  });

  it("renders a long text as short literals joined by ||, never splitting a surrogate pair", () => {
    const text = `${"a".repeat(999)}😀${"b'".repeat(600)}`;
    const rendered = sqlLiteral(text);
    assert.match(rendered, /^\('.*' \|\| '.*'\)$/s);
    const pieces = rendered.slice(1, -1).split(" || ").map((piece) => piece.slice(1, -1).replaceAll("''", "'"));
    assert.equal(pieces.join(""), text);
    assert.ok(pieces.every((piece) => piece.length <= 1000 && piece.isWellFormed()));
  });

  it("refuses what it cannot render exactly", () => {
    for (const value of [undefined, Number.NaN, Infinity, 2 ** 53, 1n, {}, [1], new Uint8Array(1), "a\0b", () => 1]) {
      assert.throws(() => sqlLiteral(value), TypeError, String(value));
    }
  });
});

describe("renderSql", () => {
  it("puts each value in place of its placeholder, in order", () => {
    assert.equal(renderSql("SELECT a FROM t WHERE b = ? AND c = ?", ["x'y", 3]), "SELECT a FROM t WHERE b = 'x''y' AND c = 3");
    assert.equal(renderSql("SELECT 'it''s', \"col\" FROM t WHERE x = ?", [null]), "SELECT 'it''s', \"col\" FROM t WHERE x = NULL");
  });

  it("fails on a ? that is not a placeholder, and on a count that differs", () => {
    const refused = [
      ["SELECT '?' WHERE a = ?", [1]],
      ['SELECT "odd?" FROM t', []],
      ["SELECT 1 -- why?\n", []],
      ["SELECT /* ? */ 1", []],
      ["SELECT ?1", [1]],
      ["SELECT :name", []],
      ["SELECT $1", []],
      ["SELECT ?", []],
      ["SELECT ?, ?", [1]],
      ["SELECT ?", [1, 2]],
      ["SELECT 'unterminated", []],
    ];
    for (const [text, values] of refused) assert.throws(() => renderSql(text, values), /cannot render/, text);
  });

  it("puts blanks around CASE and END, which wrangler's statement splitter needs", () => {
    assert.equal(renderSql("SELECT (CASE WHEN ? THEN 1 end)", [true]), "SELECT ( CASE  WHEN 1 THEN 1  END )");
    assert.equal(renderSql("SELECT casement, backend FROM t"), "SELECT casement, backend FROM t");
  });
});

describe("the builders for the tools", () => {
  const b = statements();

  it("renders a Step, an Sql and a script of them", () => {
    const [event] = b.events.insertEvent(recordingDb, "e-1", { name: "A", location: "B", eventDescription: "C", dates: ["2030-01-01"], price: 12.5 });
    assert.match(renderStatement(event), /INSERT INTO special_events .*json_each\('\[\{"eventId":"e-1","name":"A",.*"priceCents":1250,"capacity":null\}\]'\)/s);
    const query = b.events.eventsInWindowQuery({ startDate: "2030-01-01", endDate: "2030-12-31", limit: 11, offset: 0 });
    assert.match(renderStatement(query), /BETWEEN '2030-01-01' AND '2030-12-31'.*LIMIT 11 OFFSET 0$/s);
    const script = sqlScript([event, query]);
    assert.equal(script.split(";\n").length, 3);
    assert.throws(() => renderStatement({ sql: 1 }), TypeError);
    assert.throws(() => recordingDb.batch([]), /runs nothing/);
  });

  it("renders every statement the tools use", () => {
    const account = { name: "a", role: "admin", secretSha256: "0".repeat(64) };
    const steps = [
      b.accounts.insertAccount(recordingDb, account),
      b.accounts.upsertAccount(recordingDb, account),
      b.accounts.setAccountSecret(recordingDb, "a", "1".repeat(64)),
      b.accounts.revokeAccount(recordingDb, "a"),
      b.accounts.selectAccounts(recordingDb),
      b.accounts.selectAccounts(recordingDb, "a"),
      b.accounts.selectActiveAccountCredential(recordingDb, "a"),
      b.events.selectActiveEvent(recordingDb, "e-1"),
      ...b.events.updateEventFields(recordingDb, "e-1", { dates: ["2030-01-02"] }),
      b.hours.exceptionExists(recordingDb, "2030-12-25"),
      b.hours.upsertException(recordingDb, "2030-12-24", { timeOpen: "09:00", timeClose: "13:00" }, "Eve"),
      b.tickets.importTickets(recordingDb, []),
      b.tickets.selectPlacesTaken(recordingDb, "2030-01-01"),
      b.tickets.selectAttendance(recordingDb, "2030-01-01"),
    ];
    for (const step of steps) assert.doesNotThrow(() => renderStatement(step));
  });

  it("hashes a secret as the Worker verifies it (src/platform/crypto.ts)", async () => {
    const require = createRequire(import.meta.url);
    const dir = tempDir("museum-crypto-");
    const outfile = join(dir.path, "crypto.cjs");
    require("esbuild").buildSync({ entryPoints: [join(ROOT, "src", "platform", "crypto.ts")], bundle: true, platform: "node", format: "cjs", outfile, logLevel: "warning" });
    const worker = require(outfile);
    for (const secret of ["78ef89bf4734d5752f7f422a60d9b05e", "ünïcödé-😀-secret", ""]) {
      assert.equal(sha256Hex(secret), await worker.sha256Hex(secret));
    }
    dir.remove();
  });
});
