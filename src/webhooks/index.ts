import { createRouter } from "../lib/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export { deliverBatch } from "./deliver";
export { registerPublishNewEventWebhook } from "./openapi";
export { publishDeliveries, sweepUnsentDeliveries } from "./outbox";

export const webhooksRouter = createRouter()
  .openapi(routes.createWebhook, handlers.createWebhook)
  .openapi(routes.listWebhooks, handlers.listWebhooks)
  .openapi(routes.getWebhook, handlers.getWebhook)
  .openapi(routes.deleteWebhook, handlers.deleteWebhook)
  .openapi(routes.listWebhookDeliveries, handlers.listWebhookDeliveries);
