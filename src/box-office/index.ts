import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const boxOfficeRouter = createRouter()
  .openapi(routes.cancelTicket, handlers.cancelTicket)
  .openapi(routes.cancelOrder, handlers.cancelOrder)
  .openapi(routes.listCancellations, handlers.listCancellations);
