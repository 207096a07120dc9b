import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const ticketSalesRouter = createRouter()
  .openapi(routes.buyMuseumTickets, handlers.buyMuseumTickets)
  .openapi(routes.getAvailability, handlers.getAvailability)
  .openapi(routes.getAvailabilityCalendar, handlers.getAvailabilityCalendar);

// An order's validation problems name its lines (`tickets[i]`).
export const ordersRouter = createRouter({ lines: "tickets" })
  .openapi(routes.createOrder, handlers.createOrder)
  .openapi(routes.getOrder, handlers.getOrder)
  .openapi(routes.findOrdersByReference, handlers.findOrdersByReference)
  .openapi(routes.confirmOrder, handlers.confirmOrder)
  .openapi(routes.extendHold, handlers.extendHold);
