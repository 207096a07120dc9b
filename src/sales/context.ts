// What a sale's handler knows beyond the request body: the seller, the
// museum's clock, and what selling needs of the configuration. Selling (a
// sale, a held order's confirmation) needs the key that signs codes now, the
// legacy keys admission still checks, and the currency: when one is missing
// or malformed the request is refused (503) before anything is written,
// rather than selling a ticket that has no code. Prices are the database's
// (ticket categories, events).
import type { Context } from "hono";
import { type Configuration, need } from "../configuration";
import type { AppEnv } from "../env";
import { type CodeSigner, codeSignerAt } from "../ticket-image";
import type { SaleContext } from "./sell";

/** What selling needs of `config` at `now`: the currency of its answer and the signer of its tickets' codes, or 503. */
export function sellingNeeds(config: Configuration, now: Date): { currency: string; signer: CodeSigner } {
  const { codeKeys, currency } = need(config, "signingKeys", "codeKeys", "currency");
  return { currency, signer: codeSignerAt(codeKeys, now) };
}

/** A sale's context for the request `c` under `idempotency`, with the currency of its answer and its codes' signer. */
export function saleContextOf(
  c: Context<AppEnv>,
  idempotency: SaleContext["idempotency"],
): SaleContext & { currency: string; signer: CodeSigner } {
  return {
    soldBy: c.var.principal.name,
    museumNow: c.var.config.museumNow(),
    ...sellingNeeds(c.var.config, new Date()),
    idempotency,
    primaryDb: c.var.primaryDb,
  };
}
