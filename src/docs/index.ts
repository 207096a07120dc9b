import { Hono } from "hono";
import type { AppEnv } from "../env";

/**
 * GET /docs: the API reference page (Swagger UI; `/docs/` redirects to it), rendered in the browser from
 * the service's own OpenAPI document. Everything it loads comes from this
 * origin: Swagger UI's bundle and stylesheet are static assets
 * (public/docs/, copied from swagger-ui-dist by scripts/docs-assets.mjs), the
 * start-up script and the page are served here, and Swagger UI's online
 * validator badge is switched off. The page has no inline script, so its
 * Content-Security-Policy allows scripts from 'self' only. Public, like the
 * OpenAPI document.
 */
const DOCS_PATH = "/docs";
const DOCS_SCRIPT_PATH = "/docs/swagger-ui-bundle.js";
const DOCS_STYLESHEET_PATH = "/docs/swagger-ui.css";
const DOCS_INIT_PATH = "/docs/init.js";
const OPENAPI_PATH = "/v1.1/openapi.json";

/** Swagger UI's configuration (its `SwaggerUIBundle(options)`). */
const SWAGGER_UI_CONFIGURATION = {
  url: OPENAPI_PATH,
  dom_id: "#app",
  // Otherwise Swagger UI sends the document to validator.swagger.io for a badge.
  validatorUrl: null,
  // Every tag open, each operation listed with its summary (the browser test looks for them).
  docExpansion: "list",
  deepLinking: true,
} as const;

/**
 * Applies to the page and its start-up script. Styles need 'unsafe-inline':
 * Swagger UI sets style attributes at run time. Requests go to this origin
 * only (`connect-src 'self'`: the document and "Try it out").
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Museum API reference</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${DOCS_STYLESHEET_PATH}" />
  </head>
  <body>
    <noscript>This page needs JavaScript. The OpenAPI document is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <div id="app"></div>
    <script src="${DOCS_SCRIPT_PATH}"></script>
    <script src="${DOCS_INIT_PATH}"></script>
  </body>
</html>
`;

const INIT_SCRIPT = `SwaggerUIBundle(${JSON.stringify(SWAGGER_UI_CONFIGURATION)});\n`;

function securityHeaders(contentType: string): Record<string, string> {
  return {
    "Content-Type": contentType,
    "Content-Security-Policy": DOCS_CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "public, max-age=300",
  };
}

export const docsRouter = new Hono<AppEnv>()
  .get(DOCS_PATH, (c) => c.body(PAGE, 200, securityHeaders("text/html; charset=utf-8")))
  // Routes are strict about the trailing slash; a typed or linked `/docs/` still finds the page.
  .get(`${DOCS_PATH}/`, (c) => c.redirect(DOCS_PATH + new URL(c.req.url).search, 301))
  .get(DOCS_INIT_PATH, (c) => c.body(INIT_SCRIPT, 200, securityHeaders("text/javascript; charset=utf-8")));
