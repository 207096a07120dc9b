import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { AppRouteHandler } from "../http/types";
import { need } from "../configuration";
import { type CancellationContext, cancelOrderAtBoxOffice, cancelTicketAtBoxOffice } from "./cancellation";
import { cancellationsAfter } from "./feed";
import type * as routes from "./routes";

/** Who cancels, when and why, as a box-office cancellation request (`POST …/cancellation`) says. */
function cancellationContextOf(
  c: Context<AppEnv>,
  request: { reason: string | undefined; idempotencyKey: string | undefined },
): CancellationContext {
  const { currency } = need(c.var.config, "currency");
  return {
    principal: c.var.principal,
    museumNow: c.var.config.museumNow(),
    reason: request.reason,
    currency,
    idempotencyKey: request.idempotencyKey,
  };
}

export const cancelTicket: AppRouteHandler<typeof routes.cancelTicket> = async (c) => {
  const context = cancellationContextOf(c, {
    reason: c.req.valid("json").reason,
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  const { cancellation, replayed } = await cancelTicketAtBoxOffice(c.var.db, c.req.valid("param").ticketId, context);
  c.header("Cache-Control", "no-store");
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(cancellation, 200);
};

export const cancelOrder: AppRouteHandler<typeof routes.cancelOrder> = async (c) => {
  const context = cancellationContextOf(c, {
    reason: c.req.valid("json").reason,
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  const { cancellation, replayed } = await cancelOrderAtBoxOffice(c.var.db, c.req.valid("param").orderId, context);
  c.header("Cache-Control", "no-store");
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(cancellation, 200);
};

export const listCancellations: AppRouteHandler<typeof routes.listCancellations> = async (c) => {
  const { currency } = need(c.var.config, "currency");
  const feed = await cancellationsAfter(c.var.db, c.req.valid("query").since, c.var.principal, currency);
  c.header("Cache-Control", "no-store");
  return c.json(feed, 200);
};
