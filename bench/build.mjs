// Builds a checkout's Worker as a deploy would and as its package's own
// consumer sees it: `wrangler deploy --dry-run --outdir` with the checkout's
// wrangler.toml, run in the checkout (its /docs assets copied first, as its
// npm scripts do). Nothing is imported from its src/: the bench measures
// the built files over HTTP.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { runWrangler } from "../tools/lib/wrangler.mjs";

/** Builds `checkout`'s Worker into `outdir`; returns `{ script, files: [{ name, raw, gzip }], raw, gzip }`. */
export function buildWorker(checkout, outdir) {
  const docsAssets = join(checkout, "scripts", "docs-assets.mjs");
  if (existsSync(docsAssets)) execFileSync(process.execPath, [docsAssets], { cwd: checkout, stdio: ["ignore", "ignore", "inherit"] });
  runWrangler(["deploy", "--dry-run", "--outdir", outdir, "--env", "", "--config", join(checkout, "wrangler.toml")], { capture: true, cwd: checkout });
  const files = readdirSync(outdir)
    .filter((name) => !name.endsWith(".map") && name !== "README.md")
    .map((name) => {
      const bytes = readFileSync(join(outdir, name));
      return { name, raw: bytes.length, gzip: gzipSync(bytes).length };
    });
  const sum = (key) => files.reduce((s, f) => s + f[key], 0);
  return { script: join(outdir, "index.js"), files, raw: sum("raw"), gzip: sum("gzip") };
}

/**
 * The distance bundle: the built Worker (`bundleDir`, from buildWorker)
 * wrapped by bench/distance-worker.mjs, which delays and counts every D1
 * round trip; rebundled by wrangler into `outdir`. Never deployed.
 */
export function buildDistanceWorker(checkout, bundleDir, outdir) {
  const entry = join(bundleDir, "distance-worker.mjs");
  copyFileSync(new URL("./distance-worker.mjs", import.meta.url), entry);
  runWrangler(["deploy", entry, "--dry-run", "--outdir", outdir, "--env", "", "--config", join(checkout, "wrangler.toml")], { capture: true, cwd: checkout });
  return join(outdir, "distance-worker.js");
}
