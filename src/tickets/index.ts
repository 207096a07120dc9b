import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const ticketsRouter = createRouter()
  .openapi(routes.getTicketStatus, handlers.getTicketStatus)
  .openapi(routes.findTicketByConfirmationCode, handlers.findTicketByConfirmationCode);
