import type { AppRouteHandler } from "../../http/types";
import { museumNowIn } from "../../platform/dates";
import { readFresh } from "../../platform/fresh-read";
import { settingsOf } from "../../settings";
import { cancellationContextOf } from "../handlers";
import { prerenderSoldTickets, signingKeysFromEnv } from "../image";
import { buyOrder } from "./buy";
import type * as routes from "./routes";
import { cancelOrderAtBoxOffice, orderNotFound, orderStatus } from "./service";

export const createOrder: AppRouteHandler<typeof routes.createOrder> = async (c) => {
  const settings = settingsOf(c.env);
  const { order, replayed } = await buyOrder(c.var.db, c.req.valid("json"), {
    soldBy: c.var.principal.name,
    museumNow: museumNowIn(settings.MUSEUM_TIMEZONE),
    generalPriceCents: settings.GENERAL_TICKET_PRICE_CENTS,
    currency: settings.CURRENCY,
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  // A replay's images were prepared with its first response.
  if (!replayed && settings.PRERENDER_TICKET_IMAGES) {
    c.executionCtx.waitUntil(prerenderSoldTickets(order.tickets, c.var.principal.name, signingKeysFromEnv(c.env)));
  }
  // Buyer data never goes into a shared cache.
  c.header("Cache-Control", "no-store");
  c.header("Location", `${new URL(c.req.url).pathname}/${order.orderId}`);
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(order, 201);
};

export const getOrder: AppRouteHandler<typeof routes.getOrder> = async (c) => {
  const { orderId } = c.req.valid("param");
  const status = await readFresh(c.var, (db) => orderStatus(db, orderId, c.var.principal, settingsOf(c.env).CURRENCY));
  if (!status) throw orderNotFound(orderId);
  c.header("Cache-Control", "no-store");
  return c.json(status, 200);
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
