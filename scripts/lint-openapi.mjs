#!/usr/bin/env node
// `npm run lint:openapi`: lints the OpenAPI documents the Worker actually
// serves. Starts `wrangler dev` on a free port (throw-away local state),
// fetches /v1.1/openapi.json and /octo/openapi.json into temporary files,
// runs `redocly lint` on each with its config (.redocly.yaml; the OCTO
// document .redocly.octo.yaml, which extends it) and stops the server.
//   --keep <file>   also writes the /v1.1 document to <file>
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { tempDir } from "../tools/lib/process-end.mjs";
import { runRedocly } from "../tools/lib/redocly.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";

/** The documents the Worker serves, each with the config it is linted by. */
const DOCUMENTS = [
  { path: "/v1.1/openapi.json", file: "openapi.json", config: ".redocly.yaml" },
  { path: "/octo/openapi.json", file: "octo-openapi.json", config: ".redocly.octo.yaml" },
];

/** The documents as served: the Worker needs no data for them (an empty local state). */
function servedDocuments() {
  return withLocalServer({ database: "empty" }, async (server) => {
    const documents = [];
    for (const { path } of DOCUMENTS) {
      const res = await fetch(`${server.origin}${path}`);
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text}`);
      documents.push(JSON.stringify(JSON.parse(text), null, 2));
    }
    return documents;
  });
}

async function main(argv) {
  const { values } = parseCommandLine(argv, { keep: { type: "string" } }, { allowPositionals: false });
  const documents = await servedDocuments();
  if (values.keep) writeFileSync(values.keep, documents[0]);
  const work = tempDir("museum-lint-");
  const failed = [];
  for (const [i, { path, file, config }] of DOCUMENTS.entries()) {
    writeFileSync(join(work.path, file), documents[i]);
    log(`linting the served ${path} (${documents[i].length} bytes) with ${config}`);
    const { status } = await runRedocly(["lint", "--config", join(ROOT, config), join(work.path, file)], { cwd: work.path, inheritOutput: true });
    if (status !== 0) failed.push(path);
  }
  work.remove();
  if (failed.length > 0) throw new Error(`redocly lint reported problems in ${failed.join(", ")}`);
  log(`PASS: redocly lint found no problems in ${DOCUMENTS.map((d) => d.path).join(" and ")}`);
}

await runMain(main, "usage: npm run lint:openapi [-- --keep <file>]");
