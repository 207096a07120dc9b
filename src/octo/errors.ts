// OCTO's errors: `{ error, errorMessage }` (and the invalid id, echoed), 400
// for everything a request got wrong. The app's one error policy decides
// what a failure says and logs (http/errors.ts); this only reshapes its
// problem into OCTO's body, so nothing internal leaves here either.
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Hook } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../env";
import { handleError } from "../http/errors";
import type { OctoErrorCode } from "./schemas";

/** An id an error echoes: the member named after it. */
type Echo = { productId: string } | { optionId: string } | { unitId: string } | { availabilityId: string } | { uuid: string };

const STATUS: Partial<Record<OctoErrorCode, ContentfulStatusCode>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
};

/** An OCTO error a handler or the translation raises. */
export class OctoError extends HTTPException {
  readonly body: { error: OctoErrorCode; errorMessage: string } & Partial<Record<string, string>>;
  readonly headers: Record<string, string>;

  constructor(code: OctoErrorCode, errorMessage: string, echo?: Echo, options: { status?: ContentfulStatusCode; headers?: Record<string, string> } = {}) {
    const status = options.status ?? STATUS[code] ?? 400;
    super(status, { message: errorMessage });
    this.body = { error: code, errorMessage, ...echo };
    this.headers = options.headers ?? {};
  }
}

export const invalidProduct = (productId: string) =>
  new OctoError("INVALID_PRODUCT_ID", `No product ${productId}: products are "general" and the active events' ids.`, { productId });
export const invalidOption = (optionId: string) =>
  new OctoError("INVALID_OPTION_ID", `No option ${optionId}: every product has the one option "DEFAULT".`, { optionId });
export const invalidUnit = (unitId: string) =>
  new OctoError("INVALID_UNIT_ID", `No unit ${unitId} on sale for this product (units are the ticket categories on sale).`, { unitId });
export const invalidAvailability = (availabilityId: string, why = "it is not an availability of this product") =>
  new OctoError("INVALID_AVAILABILITY_ID", `The availabilityId ${availabilityId} is invalid: ${why}.`, { availabilityId });
export const invalidBooking = (uuid: string) =>
  new OctoError("INVALID_BOOKING_UUID", `No booking ${uuid} of this reseller.`, { uuid });
export const unprocessable = (errorMessage: string) => new OctoError("UNPROCESSABLE_ENTITY", errorMessage);

/** What a problem's status is in OCTO's terms: its code, and the status it keeps (OCTO answers 400 for a request that cannot be done). */
function codeOf(status: number): { code: OctoErrorCode; status: ContentfulStatusCode } {
  switch (status) {
    case 401:
      return { code: "UNAUTHORIZED", status: 401 };
    case 403:
      return { code: "FORBIDDEN", status: 403 };
    case 404:
      return { code: "NOT_FOUND", status: 404 };
    case 409:
    case 422:
      return { code: "UNPROCESSABLE_ENTITY", status: 400 };
    case 429:
      return { code: "TOO_MANY_REQUESTS", status: 429 };
    default:
      return status >= 500 ? { code: "INTERNAL_SERVER_ERROR", status: status as ContentfulStatusCode } : { code: "BAD_REQUEST", status: 400 };
  }
}

/** An OCTO error's response, with the request id (a Response made in an error handler gets no header from `c.header`). */
function octoResponse(error: OctoError, requestId: string): Response {
  return new Response(JSON.stringify(error.body), {
    status: error.status,
    headers: { ...error.headers, "Content-Type": "application/json", "X-Request-Id": requestId },
  });
}

/** The headers of a problem worth keeping on OCTO's answer. */
const KEPT_HEADERS = ["Retry-After", "WWW-Authenticate"];

/**
 * The OCTO routes' error handler: an `OctoError` as it is; any other failure
 * goes through the app's error handler (its logging, its 500 that says only
 * the request id), and its problem is said in OCTO's shape.
 */
export const handleOctoError: ErrorHandler<AppEnv> = async (err, c) => {
  if (err instanceof OctoError) return octoResponse(err, c.var.requestId);
  const problem = await handleError(err, c);
  const body = (await problem.json()) as { detail: string; errors?: { path: string; message: string }[] };
  const { code, status } = codeOf(problem.status);
  const fields = body.errors?.map((error) => `${error.path}: ${error.message}`).join("; ");
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = problem.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return octoResponse(new OctoError(code, fields ? `${body.detail} ${fields}` : body.detail, undefined, { status, headers }), c.var.requestId);
};

/** Paths whose failures OCTO names UNPROCESSABLE_ENTITY: a booking's unit items missing or none. */
const UNPROCESSABLE_PATHS = new Set(["unitItems"]);

/** The OCTO routes' validation hook: a zod failure is `BAD_REQUEST` naming each field (missing or empty unit items: `UNPROCESSABLE_ENTITY`). */
export const octoValidationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  const issues = result.error.issues;
  const unprocessableItems = issues.some((issue) => issue.path.length === 1 && UNPROCESSABLE_PATHS.has(String(issue.path[0])));
  const message = issues
    .map((issue) => `${issue.path.length === 0 ? "(body)" : issue.path.join(".")}: ${issue.message}`)
    .join("; ");
  throw unprocessableItems
    ? new OctoError("UNPROCESSABLE_ENTITY", `A booking needs 1 to 50 unitItems. ${message}`)
    : new OctoError("BAD_REQUEST", `The request is not valid. ${message}`);
};
