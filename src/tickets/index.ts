import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const ticketsRouter = createRouter()
  .openapi(routes.buyMuseumTickets, handlers.buyMuseumTickets)
  .openapi(routes.getAvailability, handlers.getAvailability)
  .openapi(routes.getTicketCode, handlers.getTicketCode)
  .openapi(routes.getTicketStatus, handlers.getTicketStatus)
  .openapi(routes.admitTicket, handlers.admitTicket)
  .openapi(routes.cancelTicket, handlers.cancelTicket)
  .openapi(routes.getAttendanceSummary, handlers.getAttendanceSummary);
