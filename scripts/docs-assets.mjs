// Copies the Scalar API reference's standalone bundle out of node_modules
// into public/docs/scalar.js, where Workers static assets serve it for the
// /docs page (no CDN: the page works with no internet). Generated, not
// committed (see .gitignore); run by npm's `prepare` (after `npm ci` /
// `npm install`) and before dev, test and deploy. Idempotent.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The package's "exports" do not list its files, so the path is taken as is.
const packageDir = join(root, "node_modules", "@scalar", "api-reference");
const source = join(packageDir, "dist", "browser", "standalone.js");
const target = join(root, "public", "docs", "scalar.js");

if (!existsSync(source)) {
  // `prepare` passes --if-present: an install without dev dependencies
  // (npm ci --omit=dev) must not fail here; dev, test and deploy still do.
  if (process.argv.includes("--if-present")) {
    console.warn(`docs-assets: ${source} is missing (dev dependencies not installed?); /docs will not work until it is copied.`);
    process.exit(0);
  }
  console.error(`docs-assets: ${source} is missing; is @scalar/api-reference installed (npm ci)?`);
  process.exit(1);
}
const upToDate =
  existsSync(target) &&
  statSync(target).size === statSync(source).size &&
  readFileSync(target).equals(readFileSync(source));
if (!upToDate) {
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(source, target);
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  console.log(`docs-assets: copied @scalar/api-reference ${version} standalone bundle to ${relative(root, target)}`);
}
