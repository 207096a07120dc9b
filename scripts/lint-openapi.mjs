#!/usr/bin/env node
// `npm run lint:openapi`: lints the OpenAPI document the Worker actually
// serves. Starts `wrangler dev` on a free port (throw-away local state),
// fetches /v1.1/openapi.json into a temporary file, runs
// `redocly lint --config .redocly.yaml` on it and stops the server.
//   --keep <file>   also writes the document to <file>
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { tempDir } from "../tools/lib/process-end.mjs";
import { runRedocly } from "../tools/lib/redocly.mjs";
import { startWranglerDev } from "../tools/lib/wrangler-dev.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";

async function servedDocument() {
  const state = tempDir("museum-lint-state-");
  const server = await startWranglerDev({ persistTo: state.path, logLevel: "warn" });
  try {
    const res = await fetch(`${server.origin}/v1.1/openapi.json`);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET /v1.1/openapi.json answered ${res.status}: ${text}`);
    return JSON.parse(text);
  } finally {
    await server.stop();
    state.remove();
  }
}

async function main(argv) {
  const { values } = parseCommandLine(argv, { keep: { type: "string" } }, { allowPositionals: false });
  const document = JSON.stringify(await servedDocument(), null, 2);
  if (values.keep) writeFileSync(values.keep, document);
  const work = tempDir("museum-lint-");
  const file = join(work.path, "openapi.json");
  writeFileSync(file, document);
  log(`linting the served document (${document.length} bytes) with .redocly.yaml`);
  const { status } = await runRedocly(["lint", "--config", join(ROOT, ".redocly.yaml"), file], { cwd: work.path, inheritOutput: true });
  work.remove();
  if (status !== 0) throw new Error("redocly lint reported problems");
  log("PASS: redocly lint found no problems in /v1.1/openapi.json");
}

await runMain(main, "usage: npm run lint:openapi [-- --keep <file>]");
