#!/usr/bin/env node
// Copies Swagger UI's prebuilt browser bundle and stylesheet out of
// node_modules/swagger-ui-dist into public/docs/, where Workers static assets
// serve them for the /docs page (no CDN: the page works with no internet).
// Generated, not committed (see .gitignore); run by npm's `prepare` (after
// `npm ci` / `npm install`) and before dev, test and deploy. Idempotent.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { exitOnHelp } from "../tools/lib/cli.mjs";

exitOnHelp(`usage: npm run docs:assets [-- --if-present]
Copies swagger-ui-dist's bundle and stylesheet into public/docs/.
  --if-present  exit 0 with a warning when swagger-ui-dist is not installed`);

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const packageDir = join(root, "node_modules", "swagger-ui-dist");
const targetDir = join(root, "public", "docs");
/** What the page loads (src/docs/index.ts), as it is named in the package. */
const FILES = ["swagger-ui-bundle.js", "swagger-ui.css"];

if (!existsSync(join(packageDir, "package.json"))) {
  // `prepare` passes --if-present: an install without dev dependencies
  // (npm ci --omit=dev) must not fail here; dev, test and deploy still do.
  if (process.argv.includes("--if-present")) {
    console.warn(`docs-assets: ${packageDir} is missing (dev dependencies not installed?); /docs will not work until it is copied.`);
    process.exit(0);
  }
  console.error(`docs-assets: ${packageDir} is missing; is swagger-ui-dist installed (npm ci)?`);
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
for (const file of FILES) {
  const source = join(packageDir, file);
  const target = join(targetDir, file);
  if (existsSync(target) && readFileSync(target).equals(readFileSync(source))) continue;
  mkdirSync(targetDir, { recursive: true });
  copyFileSync(source, target);
  console.log(`docs-assets: copied swagger-ui-dist ${version} ${file} to ${relative(root, target)}`);
}
