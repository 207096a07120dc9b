import type { AppRouteHandler } from "../../http/types";
import { readFresh } from "../../platform/fresh-read";
import { settingsOf } from "../../settings";
import { cancellationContextOf } from "../handlers";
import { prerenderSoldTickets, signingKeysOf } from "../image";
import { currencyOf, saleContextOf } from "../sale/context";
import { type Sale, sell } from "../sale/sell";
import { amountOf, totalOf } from "../../platform/money";
import type { Order } from "./schemas";
import type * as routes from "./routes";
import { cancelOrderAtBoxOffice, orderNotFound, orderStatus } from "./service";

/** `POST /orders`' answer: the order and its tickets, in the order of the lines. */
function orderSold(sale: Sale, currency: string): Order {
  return {
    orderId: sale.orderId!,
    totalPrice: totalOf(sale.tickets.map((ticket) => ticket.priceCents)),
    currency,
    tickets: sale.tickets.map(({ ticketId, ticketType, ticketDate, eventId, eventName, entryTime, priceCents, confirmationCode }) => ({
      ticketId,
      ticketType,
      ticketDate,
      ...(eventId === undefined ? {} : { eventId, eventName: eventName! }),
      ...(entryTime === undefined ? {} : { entryTime }),
      price: amountOf(priceCents),
      confirmationCode,
    })),
  };
}

export const createOrder: AppRouteHandler<typeof routes.createOrder> = async (c) => {
  const request = c.req.valid("json");
  const context = saleContextOf(c, { operation: "createOrder", key: c.req.valid("header")["idempotency-key"] });
  const { answer: order, replayed } = await sell(
    c.var.db,
    { lines: request.tickets, email: request.email, phone: request.phone, addressing: "tickets", body: request },
    context,
    (sale) => orderSold(sale, context.currency),
  );
  // A replay's images were prepared with its first response.
  if (!replayed && settingsOf(c.env).PRERENDER_TICKET_IMAGES) {
    c.executionCtx.waitUntil(prerenderSoldTickets(order.tickets, c.var.principal.name, signingKeysOf(c.env)));
  }
  // Buyer data never goes into a shared cache.
  c.header("Cache-Control", "no-store");
  c.header("Location", `${new URL(c.req.url).pathname}/${order.orderId}`);
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(order, 201);
};

export const getOrder: AppRouteHandler<typeof routes.getOrder> = async (c) => {
  const { orderId } = c.req.valid("param");
  const status = await readFresh(c.var, (db) => orderStatus(db, orderId, c.var.principal, currencyOf(c.env)));
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
