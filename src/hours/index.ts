import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const museumHoursRouter = createRouter()
  .openapi(routes.getMuseumHours, handlers.getMuseumHours)
  .openapi(routes.getWeeklySchedule, handlers.getWeeklySchedule)
  .openapi(routes.replaceWeeklySchedule, handlers.replaceWeeklySchedule)
  .openapi(routes.listHoursExceptions, handlers.listHoursExceptions)
  .openapi(routes.putHoursException, handlers.putHoursException)
  .openapi(routes.deleteHoursException, handlers.deleteHoursException);
