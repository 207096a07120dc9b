import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const specialEventsRouter = createRouter()
  .openapi(routes.createSpecialEvent, handlers.createSpecialEvent)
  .openapi(routes.listSpecialEvents, handlers.listSpecialEvents)
  .openapi(routes.getSpecialEvent, handlers.getSpecialEvent)
  .openapi(routes.updateSpecialEvent, handlers.updateSpecialEvent)
  .openapi(routes.deleteSpecialEvent, handlers.deleteSpecialEvent);
