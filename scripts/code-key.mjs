#!/usr/bin/env node
// `npm run code-key`: the Ed25519 key set of ticket codes (TICKET_CODE_KEYS,
// docs/admission.md "Keys"). Prints the new set on stdout, to pipe into
// `npx wrangler secret put TICKET_CODE_KEYS`; warnings go to stderr.
import { readFileSync } from "node:fs";
import { generateCodeKey, keySetProblems, keysPublishedLate, parseKeySet, PUBLISH_AHEAD_MS, signerAt } from "../tools/lib/code-keys.mjs";
import { log, parseCommandLine, runMain, UsageError } from "../tools/lib/cli.mjs";

const USAGE = `usage: npm run -s code-key -- [--from <set.json>] [--kid <id> [--signs-from <time>|now]] [--withdraw <id>]
  --from        the current key set (JSON file); without it, a new set
  --kid         add a new key with this id (1–8 of A-Z a-z 0-9 _ -)
  --signs-from  when the new key starts signing (RFC 3339, or "now");
                default: the full hour 49 hours ahead, so gates learn it first
  --withdraw    take a (compromised) key out of the set: its codes are refused at once
Prints the key set; checks it (exit 1 on a problem). Store it with
  npx wrangler secret put TICKET_CODE_KEYS [--env staging] < set.json`;

async function main(argv) {
  const { values } = parseCommandLine(
    argv,
    { from: { type: "string" }, kid: { type: "string" }, "signs-from": { type: "string" }, withdraw: { type: "string", multiple: true } },
    { allowPositionals: false },
  );
  const now = Date.now();
  const set = values.from ? parseKeySet(readFileSync(values.from, "utf8")) : { keys: [] };
  for (const kid of values.withdraw ?? []) {
    const before = set.keys.length;
    set.keys = set.keys.filter((key) => key.kid !== kid);
    if (set.keys.length === before) throw new UsageError(`--withdraw ${kid}: no such key in the set`);
  }
  if (values["signs-from"] !== undefined && values.kid === undefined) throw new UsageError("--signs-from needs --kid");
  if (values.kid !== undefined) {
    const from = values["signs-from"];
    // By default the next full hour 49 hours ahead: 48 hours of publication, and an hour to store the set.
    const signsFrom = from === undefined ? Math.ceil((now + PUBLISH_AHEAD_MS + 3600_000) / 3600_000) * 3600_000 : from === "now" ? now : Date.parse(from);
    if (!Number.isFinite(signsFrom)) throw new UsageError(`--signs-from ${from}: not an RFC 3339 time`);
    set.keys.push(generateCodeKey(values.kid, signsFrom));
  }
  if (set.keys.length === 0) throw new UsageError("nothing to print: give --kid to make a key");
  const problems = keySetProblems(set, now);
  if (problems.length > 0) throw new Error(`the key set is not usable:\n  ${problems.join("\n  ")}`);
  for (const key of keysPublishedLate(set, now)) {
    log(`warning: ${key.kid} signs from ${key.signsFrom}, less than 48 hours from now: gates that do not sync before then refuse its codes offline`);
  }
  log(`${signerAt(set, now).kid} signs now; ${set.keys.length} key${set.keys.length === 1 ? "" : "s"} published`);
  console.log(JSON.stringify(set));
}

await runMain(main, USAGE);
