// .dev.vars: the local accounts and secrets `wrangler dev` reads (gitignored),
// created from .dev.vars.example when missing.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { log } from "./cli.mjs";
import { ROOT } from "./wrangler.mjs";

const DEV_VARS = join(ROOT, ".dev.vars");
const DEV_VARS_EXAMPLE = join(ROOT, ".dev.vars.example");

/** Creates .dev.vars from .dev.vars.example when it is missing; returns its variables. */
export function ensureDevVars() {
  if (!existsSync(DEV_VARS)) {
    copyFileSync(DEV_VARS_EXAMPLE, DEV_VARS);
    log("created .dev.vars from .dev.vars.example (local-only credentials, never deployed)");
  }
  return parseEnv(readFileSync(DEV_VARS, "utf8"));
}
