import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const admissionRouter = createRouter()
  .openapi(routes.admitTicket, handlers.admitTicket)
  .openapi(routes.getAttendanceSummary, handlers.getAttendanceSummary)
  .openapi(routes.listRevocations, handlers.listRevocations)
  .openapi(routes.getGateKeys, handlers.getGateKeys)
  .openapi(routes.getGateConfig, handlers.getGateConfig)
  .openapi(routes.uploadOfflineScans, handlers.uploadOfflineScans)
  .openapi(routes.listAdmissionConflicts, handlers.listAdmissionConflicts);
