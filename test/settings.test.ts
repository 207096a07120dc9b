// The Worker's settings (src/settings.ts): parsed once per env object, and a
// missing or unusable value falls back to the production default, except
// money's, which is null (a sale then refuses: test/sales/configuration.test.ts).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settingsOf } from "../src/settings";

describe("settingsOf", () => {
  it("reads wrangler.toml's values as typed settings", () => {
    expect(settingsOf({ ...env, WEBHOOK_ALLOW_LOOPBACK: "false", PRERENDER_TICKET_IMAGES: "true" })).toMatchObject({
      MUSEUM_TIMEZONE: "America/New_York",
      CURRENCY: "USD",
      ADMISSION_EARLY_MINUTES: 15,
      LOGIN_FAILURE_BUDGET: 10,
      LOGIN_FAILURE_WINDOW_SECONDS: 300,
      WEBHOOK_ALLOW_LOOPBACK: false,
      PRERENDER_TICKET_IMAGES: true,
    });
  });

  it("falls back to the production default for a missing, malformed or out-of-range value", () => {
    const settings = settingsOf({
      MUSEUM_TIMEZONE: "Mars/Olympus_Mons",
      CURRENCY: "euro",
      ADMISSION_EARLY_MINUTES: "fifteen",
      WEBHOOK_MAX_ATTEMPTS: "99",
      WEBHOOK_ALLOW_LOOPBACK: "yes",
      PRERENDER_TICKET_IMAGES: "TRUE",
    });
    expect(settings).toMatchObject({
      MUSEUM_TIMEZONE: "America/New_York",
      CURRENCY: null,
      ADMISSION_EARLY_MINUTES: 15,
      WEBHOOK_MAX_ATTEMPTS: 8,
      WEBHOOK_ALLOW_LOOPBACK: false,
      PRERENDER_TICKET_IMAGES: false,
      CORS_ALLOWED_ORIGINS: "",
    });
  });

  it("parses an env object once", () => {
    const vars = { ADMISSION_EARLY_MINUTES: "30" };
    expect(settingsOf(vars)).toBe(settingsOf(vars));
    expect(settingsOf(vars).ADMISSION_EARLY_MINUTES).toBe(30);
    expect(settingsOf(vars)).toMatchObject({ CURRENCY: null });
  });
});
