import { createRouter } from "../../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const ordersRouter = createRouter({ lines: "tickets" })
  .openapi(routes.createOrder, handlers.createOrder)
  .openapi(routes.getOrder, handlers.getOrder)
  .openapi(routes.cancelOrder, handlers.cancelOrder);
