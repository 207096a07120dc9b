import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const ticketCategoriesRouter = createRouter()
  .openapi(routes.listTicketCategories, handlers.listTicketCategories)
  .openapi(routes.putTicketCategory, handlers.putTicketCategory)
  .openapi(routes.retireTicketCategory, handlers.retireTicketCategory);
