import { createRouter } from "../http/openapi";
import type { HoursTickets } from "./followers";
import * as handlers from "./handlers";
import * as routes from "./routes";

/** The hours' routes; `tickets`: the tickets' part in a change of the hours (tickets/follow.ts, from app.ts). */
export function museumHoursRouter(tickets: HoursTickets) {
  return createRouter()
    .openapi(routes.getMuseumHours, handlers.getMuseumHours)
    .openapi(routes.getWeeklySchedule, handlers.getWeeklySchedule)
    .openapi(routes.replaceWeeklySchedule, handlers.replaceWeeklySchedule(tickets))
    .openapi(routes.listHoursExceptions, handlers.listHoursExceptions)
    .openapi(routes.putHoursException, handlers.putHoursException(tickets))
    .openapi(routes.deleteHoursException, handlers.deleteHoursException(tickets));
}
