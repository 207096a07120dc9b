import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** One offending input field of a validation problem. */
export type FieldError = {
  /** Where the value sits: `dates[1]` in a body, `query.limit`, `path.eventId`, `header.idempotency-key`. */
  path: string;
  message: string;
};

/** Titles for the statuses this service answers with (RFC 9457 "title"). */
const TITLES: Partial<Record<ContentfulStatusCode, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export type ProblemOptions = {
  /** Human-readable explanation specific to this occurrence. */
  detail: string;
  /** A problem type URI; `about:blank` (the status says it all) by default. */
  type?: string;
  /** Overrides the status's standard title, for problem types of our own. */
  title?: string;
  /** Per-field validation failures. */
  errors?: FieldError[];
  /**
   * RFC 9457 extension members of this problem type (`admittedAt`,
   * `affectedTickets`); they never override the standard members.
   */
  extensions?: Record<string, unknown>;
  /** Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>;
};

/**
 * An error a client caused (or a 5xx we chose to answer), thrown from
 * middleware, validation hooks and handlers alike. The app's single error
 * handler turns it into an RFC 9457 `application/problem+json` response.
 */
export class ProblemError extends HTTPException {
  readonly problem: ProblemOptions;

  constructor(status: ContentfulStatusCode, problem: ProblemOptions) {
    super(status, { message: problem.detail });
    this.problem = problem;
  }
}

/** Builds the problem+json response for a status, adding the request id. */
export function problemResponse(
  status: ContentfulStatusCode,
  problem: ProblemOptions,
  requestId: string | undefined,
): Response {
  const body = {
    ...problem.extensions,
    type: problem.type ?? "about:blank",
    title: problem.title ?? TITLES[status] ?? "Error",
    status,
    detail: problem.detail,
    ...(problem.errors ? { errors: problem.errors } : {}),
    ...(requestId ? { requestId } : {}),
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/problem+json",
      // Set here, not left to the request-id middleware: Hono only merges the
      // headers set with c.header() into responses it builds itself, so a
      // Response returned from onError / notFound would go out without it.
      ...(requestId ? { "X-Request-Id": requestId } : {}),
      ...problem.headers,
    },
  });
}

/** The problem types this service defines beyond plain HTTP statuses. */
export const PROBLEM_TYPES = {
  validation: "/problems/validation-error",
  malformedJson: "/problems/malformed-json",
  /** A schedule change would leave valid tickets without their day (`affectedTickets`, `dates`). */
  ticketsAffected: "/problems/tickets-affected",
  /** Capacity (docs/capacity.md). */
  soldOut: "/problems/sold-out",
  capacityBelowSold: "/problems/capacity-below-sold",
  /** Admission outcomes a gate program switches on (docs/admission.md). */
  alreadyAdmitted: "/problems/already-admitted",
  ticketCancelled: "/problems/ticket-cancelled",
  notValidToday: "/problems/not-valid-today",
  tooEarly: "/problems/too-early",
  tooLate: "/problems/too-late",
  invalidTicketCode: "/problems/invalid-ticket-code",
  /** An offline upload reuses a scanId with another code (`errors` names each; nothing recorded). */
  scanIdReused: "/problems/scan-id-reused",
  /** Box-office cancellation (docs/orders.md). */
  ticketExpired: "/problems/ticket-expired",
  nothingToCancel: "/problems/nothing-to-cancel",
  /** An order's `reference` its account used before (`orderId`: that order; docs/orders.md). */
  duplicateReference: "/problems/duplicate-reference",
  /** Holds while the buyer pays (docs/orders.md). */
  holdExpired: "/problems/hold-expired",
  orderReleased: "/problems/order-released",
  orderConfirmed: "/problems/order-confirmed",
  ticketHeld: "/problems/ticket-held",
  /** The image of a ticket whose hold was released or ran out: never sold, it has no code. */
  holdEnded: "/problems/hold-ended",
  /** Ticket categories (docs/orders.md): the default is never accompanied nor retired; a child's ticket needs a companion's. */
  defaultCategory: "/problems/default-category",
  accompanimentRequired: "/problems/accompaniment-required",
  /** A secret or a money setting is missing or malformed: /healthz says which (docs/operations.md). */
  notConfigured: "/problems/not-configured",
  /** The database lacks migrations this code needs (503; docs/operations.md). */
  schemaBehind: "/problems/schema-behind",
} as const;

/**
 * The 503 of a request the service cannot serve as configured (a signing key
 * or a price missing or malformed). It names no setting: /healthz and the
 * preflight tell the operator which.
 */
export function notConfigured(what: string): ProblemError {
  return new ProblemError(503, {
    type: PROBLEM_TYPES.notConfigured,
    title: "Not configured",
    detail: `${what} The service is not fully configured; nothing was changed.`,
  });
}
