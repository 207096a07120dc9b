import { createRouter } from "../http/openapi";
import * as handlers from "./handlers";
import * as routes from "./routes";

export { registerPublishNewEventWebhook } from "./openapi";

export const webhooksRouter = createRouter()
  .openapi(routes.createWebhook, handlers.createWebhook)
  .openapi(routes.listWebhooks, handlers.listWebhooks)
  .openapi(routes.getWebhook, handlers.getWebhook)
  .openapi(routes.deleteWebhook, handlers.deleteWebhook)
  .openapi(routes.listWebhookDeliveries, handlers.listWebhookDeliveries);
