// .dev.vars: the local accounts and secrets `wrangler dev` reads (gitignored),
// created from .dev.vars.example when missing.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { log } from "./cli.mjs";
import { ROOT } from "./wrangler.mjs";

const DEV_VARS = join(ROOT, ".dev.vars");
const DEV_VARS_EXAMPLE = join(ROOT, ".dev.vars.example");

/** The variables of a file in .dev.vars' format. */
export function readDevVars(file) {
  return parseEnv(readFileSync(file, "utf8"));
}

/** Creates .dev.vars from .dev.vars.example when it is missing; returns its variables. */
export function ensureDevVars() {
  if (!existsSync(DEV_VARS)) {
    copyFileSync(DEV_VARS_EXAMPLE, DEV_VARS);
    log("created .dev.vars from .dev.vars.example (local-only credentials, never deployed)");
  }
  return readDevVars(DEV_VARS);
}
