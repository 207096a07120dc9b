import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import { ticketCategoriesRouter } from "./categories";
import { specialEventsRouter } from "./events";
import { SpecialEventResponseSchema } from "./events/schemas";
import { docsRouter } from "./docs";
import { OPENAPI_TAGS } from "./docs/tags";
import { healthRoute, healthRouter } from "./health";
import { museumHoursRouter } from "./hours";
import { handleError, handleMethodNotAllowed, handleNotFound } from "./http/errors";
import { createRouter } from "./http/openapi";
import { accessLog } from "./middleware/access-log";
import { basicAuth } from "./middleware/basic-auth";
import { configuration } from "./middleware/configuration";
import { bodyLimit } from "./middleware/body-limit";
import { cors } from "./middleware/cors";
import { d1Session } from "./middleware/d1-session";
import { jsonBody } from "./middleware/json-body";
import { loginThrottle } from "./middleware/login-throttle";
import { securityHeaders } from "./middleware/security-headers";
import { admissionRouter } from "./admission";
import { boxOfficeRouter } from "./box-office";
import { ordersRouter, ticketSalesRouter } from "./sales";
import { forgetTicketLookups, ticketImageRouter } from "./ticket-image";
import { ticketsRouter } from "./tickets";
import { ticketsFollowing } from "./tickets/follow";
import { registerPublishNewEventWebhook, webhooksRouter } from "./webhooks";
import { createOctoApi, OCTO_BASE_PATH } from "./octo";

/** The interface version this service implements (the API description's). */
const API_VERSION = "1.1.1";
const API_BASE_PATH = "/v1.1";
/** A request body, but an offline upload. */
const MAX_BODY_BYTES = 16 * 1024;
/** An offline gate's upload (`POST /admissions/offline`): 500 scans of the longest codes fit. */
const MAX_UPLOAD_BYTES = 512 * 1024;
const UPLOAD_PATH = `${API_BASE_PATH}/admissions/offline`;

/** The /v1.1 API: every operation behind Basic auth, JSON bodies of at most 16 KiB (an offline upload: 512 KiB). */
function createApi() {
  const api = createRouter();
  // Registered before the auth middleware, so the document stays public.
  api.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Museum API",
      version: API_VERSION,
      description:
        "Museum hours, special events, tickets and ticket QR images. Each operation takes only the query parameters it lists: another one, or one given twice, is 400 (`errors` names it as `query.<name>`), as an unknown body field is.",
      license: { name: "MIT", url: "https://opensource.org/license/mit/" },
    },
    servers: [{ url: API_BASE_PATH }],
    security: [{ MuseumPlaceholderAuth: [] }],
    tags: OPENAPI_TAGS,
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "MuseumPlaceholderAuth", {
    type: "http",
    scheme: "basic",
  });
  // Served by the root app (createApp), documented here with its own server.
  api.openAPIRegistry.registerPath(healthRoute);
  registerPublishNewEventWebhook(api, SpecialEventResponseSchema);

  const limit = bodyLimit(MAX_BODY_BYTES);
  const uploadLimit = bodyLimit(MAX_UPLOAD_BYTES);
  api.use(
    basicAuth({ realm: "museum", throttle: loginThrottle() }),
    (c, next) => (c.req.path === UPLOAD_PATH ? uploadLimit : limit)(c, next),
    jsonBody(),
  );
  // Sold tickets follow changes of the hours and the events (which the
  // tickets read, so it is handed to them here); this isolate then looks
  // tickets up afresh for their images.
  const tickets = ticketsFollowing(forgetTicketLookups);
  api.route("/", museumHoursRouter(tickets.hours));
  api.route("/", specialEventsRouter(tickets.events));
  api.route("/", ticketCategoriesRouter);
  api.route("/", ticketSalesRouter);
  api.route("/", ticketImageRouter);
  api.route("/", ticketsRouter);
  api.route("/", admissionRouter);
  api.route("/", boxOfficeRouter);
  api.route("/", ordersRouter);
  api.route("/", webhooksRouter);
  return api;
}

export function createApp() {
  const app = createRouter();
  // Always our own id: a client's X-Request-Id is never taken as ours (it
  // would reach logs and problem bodies as if we had issued it); the access
  // log keeps a sane one apart, as `clientRequestId`.
  app.use(requestId({ headerName: "", generator: () => crypto.randomUUID() }), async (c, next) => {
    c.header("X-Request-Id", c.var.requestId);
    await next();
  });
  // `c.var.config`, for everything after it (CORS and the login throttle read it too).
  app.use(configuration());
  // Hardening (docs/hardening.md): a log line per request, security headers
  // and the CORS allow-list on every response, preflights answered before routing.
  app.use(accessLog(), securityHeaders(), cors());
  app.use(methodNotAllowed({ app, onMethodNotAllowed: handleMethodNotAllowed }));
  app.use(d1Session());
  app.onError(handleError);
  app.notFound(handleNotFound);

  app.get("/", (c) =>
    c.json({
      name: "Museum API",
      version: API_VERSION,
      api: API_BASE_PATH,
      openapi: `${API_BASE_PATH}/openapi.json`,
      docs: "/docs",
      health: "/healthz",
      octo: OCTO_BASE_PATH,
    }),
  );
  app.route("/", healthRouter);
  app.route("/", docsRouter);
  app.route(API_BASE_PATH, createApi());
  app.route(OCTO_BASE_PATH, createOctoApi(MAX_BODY_BYTES));
  return app;
}
