import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { AppRouteHandler } from "../http/types";
import { readFresh } from "../platform/fresh-read";
import { amountOf, totalOf } from "../platform/money";
import { need } from "../http/need";
import { prerenderSoldTickets } from "../ticket-image";
import type { BuyMuseumTicketsResponse } from "./schemas";
import { availabilityCalendar, availabilityOn } from "./availability";
import { saleContextOf, sellingNeeds } from "./context";
import { orderNotFound, ordersByReference, orderStatus } from "./orders";
import { confirmHeldOrder, extendHeldOrder, type HoldContext } from "./holds";
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
  const context = saleContextOf(c, { operation: "buyMuseumTickets", key: c.req.valid("header")["idempotency-key"] });
  const { answer, replayed, sale } = await sell(
    c.var.db,
    { lines: [purchase], email: purchase.email, phone: purchase.phone, addressing: "body", body: purchase },
    context,
    { of: ticketPurchased },
  );
  // A replay's image was prepared with its first response.
  if (sale && c.var.config.settings.PRERENDER_TICKET_IMAGES) {
    c.executionCtx.waitUntil(prerenderSoldTickets(sale.tickets, c.var.principal.name, context.signer));
  }
  // Buyer data never goes into a shared cache.
  c.header("Cache-Control", "no-store");
  c.header("Location", `${new URL(c.req.url).pathname}/${answer.ticketId}/qr`);
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(answer, 201);
};

export const getAvailability: AppRouteHandler<typeof routes.getAvailability> = async (c) => {
  const museumNow = c.var.config.museumNow();
  c.header("Cache-Control", "no-store");
  return c.json(await availabilityOn(c.var.db, c.req.valid("query").date ?? museumNow.today, museumNow), 200);
};

export const getAvailabilityCalendar: AppRouteHandler<typeof routes.getAvailabilityCalendar> = async (c) => {
  const museumNow = c.var.config.museumNow();
  c.header("Cache-Control", "no-store");
  return c.json(await availabilityCalendar(c.var.db, c.req.valid("query"), museumNow), 200);
};

/** `POST /orders`' answer: the order and its tickets, in the order of the lines. */
function orderSold(sale: Sale, reference: string | undefined, currency: string): Order {
  return {
    orderId: sale.orderId!,
    ...(reference === undefined ? {} : { reference }),
    status: sale.expiresAt === undefined ? "confirmed" : "held",
    ...(sale.expiresAt === undefined ? {} : { expiresAt: sale.expiresAt }),
    totalPrice: totalOf(sale.tickets.map((ticket) => ticket.priceCents)),
    currency,
    tickets: sale.tickets.map(({ ticketId, ticketType, ticketDate, eventId, eventName, entryTime, category, priceCents, confirmationCode }) => ({
      ticketId,
      ticketType,
      ticketDate,
      ...(eventId === undefined ? {} : { eventId, eventName: eventName! }),
      ...(entryTime === undefined ? {} : { entryTime }),
      category,
      price: amountOf(priceCents),
      confirmationCode,
    })),
  };
}

/** Where `POST /orders`' answer shows what the sale's insert decides. */
const ORDER_DECIDES = { tickets: "$.tickets", total: "$.totalPrice" };

export const createOrder: AppRouteHandler<typeof routes.createOrder> = async (c) => {
  const request = c.req.valid("json");
  const context = saleContextOf(c, { operation: "createOrder", key: c.req.valid("header")["idempotency-key"] });
  const { answer: order, replayed, sale } = await sell(
    c.var.db,
    {
      lines: request.tickets,
      email: request.email,
      phone: request.phone,
      reference: request.reference,
      holdMinutes: request.holdMinutes,
      addressing: "tickets",
      body: request,
    },
    context,
    { of: (sale) => orderSold(sale, request.reference, context.currency), decided: ORDER_DECIDES },
  );
  // A replay's images were prepared with its first response; a held ticket has none yet.
  if (sale && order.status === "confirmed" && c.var.config.settings.PRERENDER_TICKET_IMAGES) {
    c.executionCtx.waitUntil(prerenderSoldTickets(sale.tickets, c.var.principal.name, context.signer));
  }
  // Buyer data never goes into a shared cache.
  c.header("Cache-Control", "no-store");
  c.header("Location", `${new URL(c.req.url).pathname}/${order.orderId}`);
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(order, 201);
};

export const getOrder: AppRouteHandler<typeof routes.getOrder> = async (c) => {
  const { orderId } = c.req.valid("param");
  const { currency } = need(c.var.config, "currency");
  const read = (db: Parameters<typeof orderStatus>[0]) => orderStatus(db, orderId, c.var.principal, currency);
  let status = await readFresh(c.var, read);
  if (!status) throw orderNotFound(orderId);
  // A hold may have been confirmed, extended or released a moment ago, on the primary.
  if (status.status === "held" || status.status === "expired") status = (await read(c.var.primaryDb())) ?? status;
  c.header("Cache-Control", "no-store");
  return c.json(status, 200);
};

function holdContextOf(c: Context<AppEnv>, currency: string): HoldContext {
  return {
    principal: c.var.principal,
    museumNow: c.var.config.museumNow(),
    currency,
    primaryDb: c.var.primaryDb,
  };
}

export const confirmOrder: AppRouteHandler<typeof routes.confirmOrder> = async (c) => {
  const { orderId } = c.req.valid("param");
  // A confirmation sells the held tickets: it needs what a sale needs.
  const { currency } = sellingNeeds(c.var.config, new Date());
  const { confirmation, replayed } = await confirmHeldOrder(c.var.db, orderId, c.req.valid("json") ?? {}, {
    ...holdContextOf(c, currency),
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  c.header("Cache-Control", "no-store");
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(confirmation, 200);
};

export const extendHold: AppRouteHandler<typeof routes.extendHold> = async (c) => {
  const { orderId } = c.req.valid("param");
  const { currency } = need(c.var.config, "currency");
  const status = await extendHeldOrder(c.var.db, orderId, c.req.valid("json").holdMinutes, holdContextOf(c, currency));
  c.header("Cache-Control", "no-store");
  return c.json(status, 200);
};

export const findOrdersByReference: AppRouteHandler<typeof routes.findOrdersByReference> = async (c) => {
  const { reference } = c.req.valid("query");
  const { currency } = need(c.var.config, "currency");
  // A shop checks a reference right after a timed-out order: a miss is read again on the primary.
  const found = await readFresh(c.var, async (db) => {
    const orders = await ordersByReference(db, reference, c.var.principal, currency);
    return orders.length === 0 ? null : orders;
  });
  c.header("Cache-Control", "no-store");
  return c.json(found ?? [], 200);
};
