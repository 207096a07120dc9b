import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { seedTestAccounts } from "./helpers";

// Runs before each test file: the real migrations, then the test accounts.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedTestAccounts();
