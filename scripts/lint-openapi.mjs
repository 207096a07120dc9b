// `npm run lint:openapi`: lints the OpenAPI document the Worker actually
// serves. Starts `wrangler dev` on a free port (throw-away local state),
// fetches /v1.1/openapi.json into a temporary file, runs
// `redocly lint --config .redocly.yaml` on it and stops the server.
// `--keep <file>` also writes the document to <file>.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { log, ROOT, startWranglerDev, tempDir } from "./e2e-server.mjs";

const keepAt = process.argv.indexOf("--keep");
const work = tempDir("museum-lint-");
const workDir = work.path;
let server;
let status = 1;
try {
  server = await startWranglerDev({ persistTo: join(workDir, "state") });
  const res = await fetch(`${server.origin}/v1.1/openapi.json`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /v1.1/openapi.json answered ${res.status}: ${text}`);
  const file = join(workDir, "openapi.json");
  writeFileSync(file, JSON.stringify(JSON.parse(text), null, 2));
  if (keepAt > 0 && process.argv[keepAt + 1]) writeFileSync(process.argv[keepAt + 1], JSON.stringify(JSON.parse(text), null, 2));
  await server.stop();
  server = undefined;
  log(`linting the served document (${text.length} bytes) with .redocly.yaml`);
  const result = spawnSync(
    process.execPath,
    [join(ROOT, "node_modules", "@redocly", "cli", "bin", "cli.js"), "lint", "--config", join(ROOT, ".redocly.yaml"), file],
    {
      cwd: workDir,
      stdio: "inherit",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    },
  );
  status = result.status ?? 1;
} catch (error) {
  console.error(`FAIL: ${error?.stack ?? error}`);
} finally {
  if (server) await server.stop().catch((error) => console.error(String(error)));
  work.remove();
}
log(status === 0 ? "PASS: redocly lint found no problems in /v1.1/openapi.json" : "FAIL: redocly lint reported problems");
process.exit(status);
