#!/usr/bin/env node
// `npm run preflight`: what would break a first deploy, for production and
// every [env.*] of wrangler.toml, each with its fix. Offline: no Cloudflare
// account, no network. Exit 0 with "ready", 1 with the list of problems.
//
//   npm run preflight [-- --config <path>] [--allow-placeholder-ids]
//
// --allow-placeholder-ids: the repository's own placeholder database ids
// pass (CI runs the other checks on the committed configuration, whose ids
// an operator fills in).
import { log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { WRANGLER_CONFIG } from "../tools/lib/wrangler.mjs";
import { checkEnvironments, newestCompatibilityDate, readEnvironments } from "../tools/lib/preflight-checks.mjs";

const USAGE = `usage: npm run preflight [-- --config <wrangler.toml>] [--allow-placeholder-ids]
  --config                 the configuration to check (default: the repository's wrangler.toml)
  --allow-placeholder-ids  let the repository's placeholder database ids pass (CI)`;

async function main(argv) {
  const { values } = parseCommandLine(
    argv,
    {
      config: { type: "string", default: WRANGLER_CONFIG },
      "allow-placeholder-ids": { type: "boolean", default: false },
    },
    { allowPositionals: false },
  );
  const environments = await readEnvironments(values.config);
  const facts = {
    newestCompatibilityDate: newestCompatibilityDate(),
    today: new Date().toISOString().slice(0, 10),
    allowPlaceholderIds: values["allow-placeholder-ids"],
  };
  const names = environments.map((e) => e.name).join(", ");
  const problems = checkEnvironments(environments, facts);
  if (problems.length === 0) {
    const caveat = facts.allowPlaceholderIds ? " (placeholder database ids allowed)" : "";
    console.log(`ready: ${names}${caveat}`);
    return;
  }
  log(`preflight: ${problems.length} problem${problems.length === 1 ? "" : "s"} in ${values.config} (${names})\n`);
  for (const { environment, problem, fix } of problems) log(`✗ ${environment}: ${problem}\n    fix: ${fix}\n`);
  process.exitCode = 1;
}

await runMain(main, USAGE);
