#!/usr/bin/env node
// `npm run types`: writes worker-configuration.d.ts, the Worker's `Env`
// (bindings, [vars], secrets) as `wrangler types --include-runtime=false`
// generates it; the runtime types come from @cloudflare/workers-types.
//   npm run types              regenerate
//   npm run types -- --check   fail when the committed file is not what it would generate (CI)
//
// wrangler.toml has no `[secrets]` block (with one, plain `wrangler dev` reads
// only the listed keys from .dev.vars), so wrangler would take the secrets'
// names from whatever local .dev.vars exists. They come from a fixed file of
// names instead, so the result is the same on every machine.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { ROOT, runWrangler } from "../tools/lib/wrangler.mjs";
import { REQUIRED_SECRETS } from "./preflight-checks.mjs";

const USAGE = "usage: npm run types [-- --check]";
const TYPES_FILE = join(ROOT, "worker-configuration.d.ts");
const SECRET_NAMES_FILE = join(ROOT, ".wrangler", "types", "secret-names.env");

async function main(argv) {
  const { values } = parseCommandLine(argv, { check: { type: "boolean" } }, { allowPositionals: false });
  mkdirSync(join(SECRET_NAMES_FILE, ".."), { recursive: true });
  writeFileSync(SECRET_NAMES_FILE, REQUIRED_SECRETS.map((name) => `${name}=\n`).join(""));
  const committed = readFileSync(TYPES_FILE, "utf8");
  runWrangler(["types", "--include-runtime=false", "--env-file", relative(ROOT, SECRET_NAMES_FILE)], { capture: true });
  if (!values.check) return log(`wrote ${relative(ROOT, TYPES_FILE)}`);
  const generated = readFileSync(TYPES_FILE, "utf8");
  if (generated !== committed) {
    writeFileSync(TYPES_FILE, committed);
    throw new Error(`${relative(ROOT, TYPES_FILE)} is out of date with wrangler.toml: run npm run types and commit it`);
  }
  log(`${relative(ROOT, TYPES_FILE)} is current`);
}

await runMain(main, USAGE);
