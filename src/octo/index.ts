/**
 * Resellers' door: the OCTO booking standard's core under /octo
 * (docs/octo.md), a second door to the same sale. Its handlers translate
 * OCTO's requests into the sales, holds, categories, availability and box
 * office services and their answers into OCTO's shapes; no rule of theirs is
 * written here again. Authenticated by API keys of sales accounts.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { apiKeyAuth } from "../middleware/api-key-auth";
import { bodyLimit } from "../middleware/body-limit";
import { jsonBody } from "../middleware/json-body";
import { loginThrottle } from "../middleware/login-throttle";
import { allowRoles } from "../middleware/require-role";
import { handleOctoError, OctoError, octoValidationHook } from "./errors";
import { NO_CAPABILITIES, OCTO_CAPABILITIES } from "./routes";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const OCTO_BASE_PATH = "/octo";

/** The /octo API: every operation behind a reseller's API key (a sales account's), JSON bodies of at most `maxBodyBytes`. */
export function createOctoApi(maxBodyBytes: number) {
  const octo = new OpenAPIHono<AppEnv>({ defaultHook: octoValidationHook });
  octo.onError(handleOctoError);
  // Registered before the key check, so the document stays public.
  octo.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Museum API: OCTO",
      version: "1.0.0",
      description: "The museum's tickets for resellers, as the OCTO booking standard's core (octo.travel): products, availability, bookings.",
      license: { name: "MIT", url: "https://opensource.org/license/mit/" },
    },
    servers: [{ url: OCTO_BASE_PATH }],
    security: [{ OctoApiKey: [] }],
    tags: [{ name: "OCTO", description: "Products, availability and bookings for resellers (docs/octo.md)." }],
  });
  octo.openAPIRegistry.registerComponent("securitySchemes", "OctoApiKey", { type: "http", scheme: "bearer" });
  // OCTO core only: whatever capabilities a request asks for, none is initialized.
  octo.use(async (c, next) => {
    await next();
    c.header(OCTO_CAPABILITIES, NO_CAPABILITIES);
  });
  octo.use(apiKeyAuth({ throttle: loginThrottle() }), allowRoles("sales").middleware, bodyLimit(maxBodyBytes), jsonBody());
  octo
    .openapi(routes.getSupplier, handlers.getSupplier)
    .openapi(routes.getProducts, handlers.getProducts)
    .openapi(routes.getProduct, handlers.getProduct)
    .openapi(routes.octoCalendar, handlers.octoCalendar)
    .openapi(routes.octoAvailability, handlers.octoAvailability)
    .openapi(routes.reserveBooking, handlers.reserveBooking)
    .openapi(routes.extendBooking, handlers.extendBooking)
    .openapi(routes.confirmBooking, handlers.confirmBooking)
    .openapi(routes.updateBooking, handlers.updateBooking)
    .openapi(routes.cancelBooking, handlers.cancelBooking)
    .openapi(routes.octoBooking, handlers.octoBooking)
    .openapi(routes.octoBookings, handlers.octoBookings);
  // An unknown path under /octo: OCTO's error, not the app's problem.
  octo.all("*", (c) => {
    throw new OctoError("NOT_FOUND", `No OCTO operation at ${c.req.method} ${c.req.path}.`);
  });
  return octo;
}
