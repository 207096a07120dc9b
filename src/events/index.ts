import { createRouter } from "../http/openapi";
import type { EventTickets } from "./followers";
import * as handlers from "./handlers";
import * as routes from "./routes";

/** The events' routes; `tickets`: the tickets' part in an event change (tickets/follow.ts, from app.ts). */
export function specialEventsRouter(tickets: EventTickets) {
  return createRouter()
    .openapi(routes.createSpecialEvent, handlers.createSpecialEvent)
    .openapi(routes.listSpecialEvents, handlers.listSpecialEvents)
    .openapi(routes.getSpecialEvent, handlers.getSpecialEvent)
    .openapi(routes.updateSpecialEvent, handlers.updateSpecialEvent(tickets))
    .openapi(routes.deleteSpecialEvent, handlers.deleteSpecialEvent(tickets));
}
