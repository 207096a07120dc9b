// What a sale's handler knows beyond the request body, read from the Worker's
// settings and secrets. A sale needs its signing keys (a key that signs codes
// now, and the legacy one admission still checks) and its currency: when
// either is missing or malformed the request is refused (503) before anything
// is written, rather than selling a ticket that has no code. Prices are the
// database's (ticket categories, events).
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { museumNowOf } from "../settings";
import { codeKeysOf, codeSignerAt, signingKeysOf } from "../ticket-image";
import { currencyOf } from "../tickets/currency";
import type { SaleContext } from "./sell";

/** A sale's context for the request `c` under `idempotency`, and the currency of its answer. */
export function saleContextOf(c: Context<AppEnv>, idempotency: SaleContext["idempotency"]): SaleContext & { currency: string } {
  signingKeysOf(c.env);
  codeSignerAt(codeKeysOf(c.env), new Date());
  return {
    soldBy: c.var.principal.name,
    museumNow: museumNowOf(c.env),
    currency: currencyOf(c.env),
    idempotency,
    primaryDb: c.var.primaryDb,
  };
}
