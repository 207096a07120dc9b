#!/usr/bin/env node
// Operator tool for API accounts (HTTP Basic credentials).
//
//   npm run account -- create <name> --role admin|sales|box-office|gate [--local | --remote] [--env staging]
//   npm run account -- rotate <name>                    [--local | --remote] [--env staging]
//   npm run account -- list                             [--local | --remote] [--env staging]
//   npm run account -- revoke <name>                    [--local | --remote] [--env staging]
//   npm run account -- create-key <name>                [--local | --remote] [--env staging]
//   npm run account -- list-keys                        [--local | --remote] [--env staging]
//   npm run account -- revoke-key <key-id>              [--local | --remote] [--env staging]
//
// The target defaults to --local (the D1 of `wrangler dev`). `--remote` alone
// is production; `--remote --env staging` is staging. `create` and `rotate`
// generate a 192-bit random secret, store only its SHA-256 and print the
// secret once: it cannot be shown again. `create-key` does the same for a
// reseller's OCTO API key (a sales account's; docs/octo.md).
import { ACCOUNT_NAME, ACCOUNT_ROLES, newAccount, newKeyId, newSecret, sha256Hex } from "../tools/lib/accounts.mjs";
import { UsageError, log, parseCommandLine, runMain } from "../tools/lib/cli.mjs";
import { recordingDb as db, sqlScript, statements } from "../tools/lib/statements.mjs";
import { d1Execute, d1Target } from "../tools/lib/wrangler.mjs";

const USAGE = `usage: npm run account -- <command> [options]
  create <name> --role admin|sales|box-office|gate
                                     create an account; prints its secret once (sales: one per
                                     web shop or kiosk, sees only what it sold; box-office: staffed
                                     tills, every ticket; gate: one per scanner; see SECURITY.md)
  rotate <name>                      give an active account a new secret; prints it once
  list                               name, role, created_at, revoked_at of every account
  revoke <name>                      revoke an account (its requests get 401 from then on)
  create-key <name>                  give a sales account (a reseller) an OCTO API key; prints it once
  list-keys                          key id, account, created_at, revoked_at of every API key
  revoke-key <key-id>                revoke an API key (its requests get 401 from then on)
options:
  --local          the local D1 of \`wrangler dev\` (default)
  --remote         the deployed D1 (production unless --env is given)
  --env <name>     a wrangler.toml environment, e.g. staging
  --persist-to <dir>  a local state directory other than wrangler's default (with --local)
names: 1–64 characters of a-z 0-9 . _ -`;

function accountName(value) {
  if (value === undefined) throw new UsageError("an account name is needed");
  if (!ACCOUNT_NAME.test(value)) throw new UsageError(`invalid account name ${JSON.stringify(value)}`);
  return value;
}

// The statement of each command: the accounts feature's builders
// (src/accounts/statements.ts), rendered for wrangler; values only after
// validation (names and roles) or generation (hashes).
const { accounts } = statements();

function rows(target, step) {
  return d1Execute(target, { command: sqlScript([step]) }).flat();
}

function printKey(keyId, name, key, target) {
  process.stdout.write(`${key}\n`);
  log(`
The OCTO API key ${keyId} of ${name} is printed above. Give it to the
reseller now over a safe channel: it is not stored anywhere and cannot be
shown again. The reseller sends it as a bearer token:
  curl -H 'Authorization: Bearer <key>' https://<host>/octo/products
Revoke it with: npm run account -- revoke-key ${keyId}
Target: ${target.label}.`);
}

/** Prints rows as a table under `header` (column keys and titles). */
function printTable(header, list) {
  const table = [header, ...list];
  const widths = Object.keys(header).map((key) => Math.max(...table.map((row) => String(row[key]).length)));
  for (const row of table) {
    const cells = Object.keys(header).map((key, i) => String(row[key]).padEnd(widths[i]));
    process.stdout.write(`${cells.join("  ").trimEnd()}\n`);
  }
}

function printSecret(name, secret, target) {
  process.stdout.write(`${secret}\n`);
  log(`
The secret of ${name} is printed above. Store it now (for example in the
password manager of whoever runs the client): it is not stored anywhere and
cannot be shown again. Clients send it as HTTP Basic credentials:
  curl -u '${name}:<secret>' https://<host>/v1.1/special-events
Target: ${target.label}.`);
}

async function main(argv) {
  const { values: args, positionals: all } = parseCommandLine(argv, {
    local: { type: "boolean" },
    remote: { type: "boolean" },
    help: { type: "boolean" },
    role: { type: "string" },
    env: { type: "string" },
    "persist-to": { type: "string" },
  });
  const [command, ...positionals] = all;
  if (args.help || command === undefined || command === "help") {
    log(USAGE);
    return;
  }
  if (args.local && args.remote) throw new UsageError("choose --local or --remote");
  const target = d1Target({ remote: args.remote === true, env: args.env, persistTo: args["persist-to"] });
  const expectPositionals = (n) => {
    if (positionals.length !== n) throw new UsageError(`${command} takes ${n === 0 ? "no" : n} argument${n === 1 ? "" : "s"}`);
  };
  if (command !== "create" && args.role !== undefined) throw new UsageError("--role is only for create");

  switch (command) {
    case "create": {
      expectPositionals(1);
      const name = accountName(positionals[0]);
      const role = args.role;
      if (!ACCOUNT_ROLES.includes(role)) throw new UsageError(`--role must be ${ACCOUNT_ROLES.join(" or ")}`);
      const secret = newSecret();
      const created = rows(target, accounts.insertAccount(db, newAccount({ name, role, secret })));
      if (created.length === 0) {
        throw new Error(`an account named ${name} already exists in ${target.label} (use rotate for a new secret)`);
      }
      log(`created ${role} account ${name}`);
      printSecret(name, secret, target);
      return;
    }
    case "rotate": {
      expectPositionals(1);
      const name = accountName(positionals[0]);
      const secret = newSecret();
      const updated = rows(target, accounts.setAccountSecret(db, name, sha256Hex(secret)));
      if (updated.length === 0) throw new Error(`no active account named ${name} in ${target.label}`);
      log(`new secret for ${name}; the old one no longer works`);
      printSecret(name, secret, target);
      return;
    }
    case "list": {
      expectPositionals(0);
      const list = rows(target, accounts.selectAccounts(db));
      log(`accounts in ${target.label}:`);
      printTable(
        { name: "NAME", role: "ROLE", created_at: "CREATED_AT", revoked_at: "REVOKED_AT" },
        list.map((a) => ({ ...a, revoked_at: a.revoked_at ?? "-" })),
      );
      return;
    }
    case "create-key": {
      expectPositionals(1);
      const name = accountName(positionals[0]);
      const key = newSecret();
      const keyId = newKeyId();
      const created = rows(target, accounts.insertApiKey(db, { keyId, accountName: name, keySha256: sha256Hex(key) }));
      if (created.length === 0) {
        const existing = rows(target, accounts.selectAccounts(db, name))[0];
        throw new Error(
          !existing ? `no account named ${name} in ${target.label}`
          : existing.revoked_at ? `${name} is revoked`
          : existing.role !== "sales" ? `${name} is a ${existing.role} account; API keys are for sales accounts (resellers)`
          : `key id ${keyId} is taken; run it again`,
        );
      }
      log(`created API key ${keyId} for ${name}`);
      printKey(keyId, name, key, target);
      return;
    }
    case "list-keys": {
      expectPositionals(0);
      const list = rows(target, accounts.selectApiKeys(db));
      log(`API keys in ${target.label}:`);
      printTable(
        { key_id: "KEY_ID", account_name: "ACCOUNT", created_at: "CREATED_AT", revoked_at: "REVOKED_AT" },
        list.map((k) => ({ ...k, revoked_at: k.revoked_at ?? "-" })),
      );
      return;
    }
    case "revoke-key": {
      expectPositionals(1);
      const keyId = positionals[0];
      if (!/^[a-z0-9-]{1,32}$/.test(keyId ?? "")) throw new UsageError(`invalid key id ${JSON.stringify(keyId)}`);
      const revoked = rows(target, accounts.revokeApiKey(db, keyId));
      if (revoked.length === 0) {
        const existing = rows(target, accounts.selectApiKeys(db, keyId))[0];
        throw new Error(existing ? `key ${keyId} was already revoked at ${existing.revoked_at}` : `no API key ${keyId} in ${target.label}`);
      }
      log(`revoked API key ${keyId} of ${revoked[0].account_name} at ${revoked[0].revoked_at} in ${target.label}`);
      return;
    }
    case "revoke": {
      expectPositionals(1);
      const name = accountName(positionals[0]);
      const revoked = rows(target, accounts.revokeAccount(db, name));
      if (revoked.length === 0) {
        const existing = rows(target, accounts.selectAccounts(db, name))[0];
        throw new Error(
          existing ? `${name} was already revoked at ${existing.revoked_at}` : `no account named ${name} in ${target.label}`,
        );
      }
      log(`revoked ${name} at ${revoked[0].revoked_at} in ${target.label}`);
      return;
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

await runMain(main, USAGE);
