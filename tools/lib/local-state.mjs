// Throw-away local state for the end-to-end checks: a fresh local D1 with
// every migration and one account, and throw-away Worker secrets, so a check
// never touches the developer's `npm run dev` database or .dev.vars.
import { randomBytes } from "node:crypto";
import { generateCodeKey } from "./code-keys.mjs";
import { basicAuthorization, insertAccountSql, newSecret } from "./accounts.mjs";
import { tempDir } from "./process-end.mjs";
import { applyMigrations, d1Execute, d1Target } from "./wrangler.mjs";

/**
 * A fresh local D1 state in a temporary directory (removed by `cleanup()` or
 * when the process ends): every migration, one account (`admin` by default).
 * Returns `{ persistTo, account: { name, secret }, authorization, cleanup }`.
 */
export function prepareLocalState({ name = "e2e-admin", role = "admin" } = {}) {
  const dir = tempDir("museum-e2e-state-");
  const target = d1Target({ persistTo: dir.path });
  applyMigrations(target, { quiet: true });
  const secret = newSecret();
  d1Execute(target, { command: insertAccountSql({ name, role, secret }) });
  return {
    persistTo: dir.path,
    account: { name, secret },
    authorization: basicAuthorization(name, secret),
    cleanup: dir.remove,
  };
}

/** Throw-away values for the Worker's secrets (`startWranglerDev({ vars })`); the real ones are Worker secrets. */
export function throwawaySecrets() {
  return {
    TICKET_SIGNING_KEY: randomBytes(32).toString("hex"),
    TICKET_CODE_KEYS: JSON.stringify({ keys: [generateCodeKey("E2E", Date.now() - 60_000)] }),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
  };
}
