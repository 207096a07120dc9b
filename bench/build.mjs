// Bundle size and startup time of the Worker, measured offline.
//   - size: `wrangler deploy --dry-run --outdir <dir>` (what would be uploaded),
//     raw and gzip, plus wrangler's own "Total Upload" line;
//   - startup: `wrangler check startup`, a CPU profile of the Worker's
//     top-level evaluation in a local workerd; the time the profile's samples
//     spent outside "(idle)".
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { runWrangler } from "../tools/lib/wrangler.mjs";

/**
 * Builds the Worker as `wrangler deploy` would; returns sizes. `entry`: another
 * entry module than wrangler.toml's `main` (the bench's distance bundle).
 */
export function buildBundle(outdir, { minify = false, entry } = {}) {
  const args = ["deploy", ...(entry ? [entry] : []), "--dry-run", "--outdir", outdir, "--env", ""];
  if (minify) args.push("--minify");
  const out = runWrangler(args, { capture: true });
  const total = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(out);
  const files = readdirSync(outdir)
    .filter((name) => !name.endsWith(".map") && name !== "README.md")
    .map((name) => {
      const bytes = readFileSync(join(outdir, name));
      return { name, raw: statSync(join(outdir, name)).size, gzip: gzipSync(bytes).length };
    });
  return {
    minify,
    // wrangler names the bundle after its entry module.
    script: join(outdir, entry ? `${basename(entry, extname(entry))}.js` : "index.js"),
    files,
    raw: files.reduce((s, f) => s + f.raw, 0),
    gzip: files.reduce((s, f) => s + f.gzip, 0),
    wranglerTotalKiB: total ? Number(total[1]) : null,
    wranglerGzipKiB: total ? Number(total[2]) : null,
  };
}

/** Busy time of a V8 .cpuprofile: the sampled time not spent "(idle)". */
export function profileBusyMs(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  let busyUs = 0;
  let scriptUs = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    // timeDeltas[i + 1] is the time from sample i to the next one.
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const node = nodes.get(profile.samples[i]);
    const name = node?.callFrame.functionName;
    if (name === "(idle)") continue;
    busyUs += delta;
    if (name !== "(program)" && name !== "(garbage collector)") scriptUs += delta;
  }
  return { busyMs: busyUs / 1000, scriptMs: scriptUs / 1000 };
}

/** `wrangler check startup`, with or without --minify; returns the profile's busy time. */
export function startupProfile(outfile, { minify = false } = {}) {
  const args = ["check", "startup", "--outfile", outfile];
  if (minify) args.push("--args=--minify");
  runWrangler(args, { capture: true });
  const profile = JSON.parse(readFileSync(outfile, "utf8"));
  return { minify, ...profileBusyMs(profile) };
}
