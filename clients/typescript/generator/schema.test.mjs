// The client's committed types are openapi-typescript's output for the
// committed snapshot (test/clients/typescript-client.test.ts proves the
// snapshot is what the Worker serves): a hand edit of either, or a
// regeneration of only one, fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { ROOT } from "../../../tools/lib/wrangler.mjs";
import { documentText, schemaTypes } from "./schema-types.mjs";

const CLIENT = join(ROOT, "clients", "typescript");

it("clients/typescript/src/schema.d.ts is generated from clients/typescript/openapi.json", async () => {
  const snapshotText = readFileSync(join(CLIENT, "openapi.json"), "utf8");
  const doc = JSON.parse(snapshotText);
  assert.equal(snapshotText, documentText(doc), "openapi.json is not as `npm run client:generate` writes it");
  assert.equal(readFileSync(join(CLIENT, "src", "schema.d.ts"), "utf8"), await schemaTypes(doc), "run `npm run client:generate`");
});
