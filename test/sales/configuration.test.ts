// A sale needs its signing keys and its currency: with either missing or
// malformed in the Worker's configuration, nothing is written and the answer
// is a 503 that names no secret; /healthz names what is missing.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { api, dumpDatabase, expectProblem, plusDays, todayInZone } from "../support/helpers";
import { setTestVars } from "../support/worker";
import { buy, order } from "../tickets/fixtures";

const TODAY = todayInZone(env.MUSEUM_TIMEZONE);
// A Monday four weeks ahead: open by the weekly schedule.
const DAY = (() => {
  let day = plusDays(TODAY, 28);
  while (new Date(`${day}T12:00:00Z`).getUTCDay() !== 1) day = plusDays(day, 1);
  return day;
})();
const general = { ticketType: "general", ticketDate: DAY, email: "config@example.com" };
const anOrder = { email: "config@example.com", tickets: [{ ticketType: "general", ticketDate: DAY }] };

afterEach(() => setTestVars());

const BROKEN = {
  "a missing signing key": { TICKET_SIGNING_KEY: undefined },
  "a signing key too short to be safe": { TICKET_SIGNING_KEY: "short-key" },
  "a currency that is not ISO 4217": { CURRENCY: "euro" },
} as const;

describe("a sale under an incomplete configuration", () => {
  for (const [what, vars] of Object.entries(BROKEN)) {
    it(`writes nothing and answers 503 not-configured, naming no secret: ${what}`, async () => {
      const before = await dumpDatabase({ except: ["login_failures"] });
      setTestVars(vars);
      for (const res of [await buy(general), await order(anOrder), await buy(general, { key: crypto.randomUUID() })]) {
        const problem = await expectProblem(res, 503);
        expect(problem.type).toBe("/problems/not-configured");
        expect(JSON.stringify(problem)).not.toMatch(/TICKET_SIGNING_KEY|CURRENCY|short-key/);
      }
      expect(await dumpDatabase({ except: ["login_failures"] })).toBe(before);
    });
  }

  it("sells once the configuration is complete again: a retry after the 503 buys one ticket", async () => {
    const email = `${crypto.randomUUID()}@example.com`;
    setTestVars({ TICKET_SIGNING_KEY: undefined });
    await expectProblem(await buy({ ...general, email }), 503);
    setTestVars();
    expect((await buy({ ...general, email })).status).toBe(201);
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM tickets WHERE buyer_email = ?1").bind(email).first<{ n: number }>())!;
    expect(n).toBe(1);
  });

  it("shows no amount in a currency it cannot name: a ticket's status is 503 too", async () => {
    const sold = (await (await buy(general)).json()) as { ticketId: string };
    setTestVars({ CURRENCY: "" });
    const problem = await expectProblem(await api(`/v1.1/tickets/${sold.ticketId}`, { as: "sales" }), 503);
    expect(problem.type).toBe("/problems/not-configured");
  });
});

describe("/healthz", () => {
  it("reports a complete configuration", async () => {
    const res = await api("/healthz", { as: null });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { checks: { configuration: unknown } }).checks.configuration).toEqual({ status: "ok", problems: [] });
  });

  it("names what is missing or malformed (never a value) and answers 503 until it is set", async () => {
    setTestVars({ TICKET_SIGNING_KEY: "short-key", CURRENCY: "euro" });
    const problem = await expectProblem(await api("/healthz", { as: null }), 503);
    expect(problem.type).toBe("/problems/not-configured");
    const { configuration } = (problem as unknown as { checks: { configuration: { status: string; problems: string[] } } }).checks;
    expect(configuration.status).toBe("incomplete");
    expect(configuration.problems).toEqual([expect.stringMatching(/^TICKET_SIGNING_KEY: the secret is shorter/), "CURRENCY is missing or malformed."]);
    expect(JSON.stringify(problem)).not.toContain("short-key");
  });
});
