#!/usr/bin/env node
// `npm run client:generate`: the client's types follow the service.
//  1. `wrangler dev` on a free port with a throw-away local state and
//     throw-away secrets (the document needs no data, and no account: it is public);
//  2. GET /v1.1/openapi.json, saved as openapi.json (the snapshot the
//     drift test compares with what the Worker serves);
//  3. openapi-typescript over it, saved as src/schema.d.ts;
//  4. the README's problem table, from it.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { exitOnHelp, log } from "../../../tools/lib/cli.mjs";
import { withLocalServer } from "../../../tools/lib/local-state.mjs";
import { ROOT } from "../../../tools/lib/wrangler.mjs";

exitOnHelp(`usage: npm run client:generate
Regenerates the typed client from what the Worker serves: wrangler dev (a throw-away state), its
/v1.1/openapi.json saved as clients/typescript/openapi.json, and openapi-typescript's types of it
as clients/typescript/src/schema.d.ts (docs/client.md). Commit both.`);
// The generator's own dependencies are installed on demand (npm run client:generate does it
// first), so they are imported only once help is out of the way.
const { documentText, schemaTypes } = await import("./schema-types.mjs");
const { withProblemTable } = await import("./client-document.mjs");

const CLIENT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SNAPSHOT = join(CLIENT, "openapi.json");
const TYPES = join(CLIENT, "src", "schema.d.ts");
const README = join(CLIENT, "README.md");

const doc = await withLocalServer({ database: "empty" }, async (server) => {
  const res = await fetch(`${server.origin}/v1.1/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /v1.1/openapi.json answered ${res.status}`);
  return res.json();
});

writeFileSync(SNAPSHOT, documentText(doc));
writeFileSync(TYPES, await schemaTypes(doc));
writeFileSync(README, withProblemTable(readFileSync(README, "utf8"), doc));
log(`wrote ${relative(ROOT, SNAPSHOT)}, ${relative(ROOT, TYPES)} (${Object.keys(doc.paths ?? {}).length} paths) and the problem table of ${relative(ROOT, README)}`);
