import { eventName } from "../events/statements";
import type { AppRouteHandler } from "../http/types";
import { museumNowIn } from "../platform/dates";
import { readFresh } from "../platform/fresh-read";
import { amountOf, totalOf } from "../platform/money";
import { settingsOf } from "../settings";
import { codeKeysOf, codeSignerAt, prerenderSoldTickets } from "../ticket-image";
import type { BuyMuseumTicketsResponse } from "./schemas";
import { availabilityOn } from "./availability";
import { currencyOf } from "../tickets/currency";
import { saleContextOf } from "./context";
import { orderNotFound, orderStatus } from "./orders";
import type { Order } from "./schemas";
import { type Sale, sell } from "./sell";
import type * as routes from "./routes";

const MESSAGES = {
  general: "Museum general entry ticket purchased",
  event: "Museum special event ticket purchased",
} as const;

/** `POST /tickets`' answer (the 1.1.1 shape): the one ticket sold. */
function ticketPurchased({ tickets: [ticket] }: Sale): BuyMuseumTicketsResponse {
  const { ticketId, ticketType, ticketDate, eventName, entryTime, confirmationCode } = ticket!;
  return {
    message: MESSAGES[ticketType],
    ticketId,
    ...(eventName === undefined ? {} : { eventName }),
    ticketType,
    ticketDate,
    ...(entryTime === undefined ? {} : { entryTime }),
    confirmationCode,
  };
}

export const buyMuseumTickets: AppRouteHandler<typeof routes.buyMuseumTickets> = async (c) => {
  const purchase = c.req.valid("json");
  const { answer, replayed } = await sell(
    c.var.db,
    { lines: [purchase], email: purchase.email, phone: purchase.phone, addressing: "body", body: purchase },
    saleContextOf(c, { operation: "buyMuseumTickets", key: c.req.valid("header")["idempotency-key"] }),
    ticketPurchased,
  );
  // A replay's image was prepared with its first response.
  if (!replayed && settingsOf(c.env).PRERENDER_TICKET_IMAGES) {
    const signer = codeSignerAt(codeKeysOf(c.env), new Date());
    c.executionCtx.waitUntil(prerenderSoldTickets(c.var.db, [answer.ticketId], c.var.principal.name, signer));
  }
  // Buyer data never goes into a shared cache.
  c.header("Cache-Control", "no-store");
  c.header("Location", `${new URL(c.req.url).pathname}/${answer.ticketId}/qr`);
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(answer, 201);
};

export const getAvailability: AppRouteHandler<typeof routes.getAvailability> = async (c) => {
  const museumNow = museumNowIn(settingsOf(c.env).MUSEUM_TIMEZONE);
  c.header("Cache-Control", "no-store");
  return c.json(await availabilityOn(c.var.db, c.req.valid("query").date ?? museumNow.today, museumNow), 200);
};

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
    const ticketIds = order.tickets.map((ticket) => ticket.ticketId);
    const signer = codeSignerAt(codeKeysOf(c.env), new Date());
    c.executionCtx.waitUntil(prerenderSoldTickets(c.var.db, ticketIds, c.var.principal.name, signer));
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
