// The museum's currency (configuration: CURRENCY), shown with every price,
// total and refund. A currency that does not parse refuses the answer (503)
// rather than show amounts in a default one (settings.ts).
import type { AppEnv } from "../env";
import { notConfigured } from "../http/problem";
import { settingsOf } from "../settings";

/** The museum's currency (configuration: CURRENCY), or the 503 when it does not parse. */
export function currencyOf(env: AppEnv["Bindings"]): string {
  const currency = settingsOf(env).CURRENCY;
  if (currency === null) throw notConfigured("Amounts cannot be shown right now.");
  return currency;
}

