import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Hook } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { PROBLEM_TYPES, ProblemError, problemResponse, type FieldError, type ProblemOptions } from "./problem";
import { GuardRaced } from "../platform/batch";
import { D1_RETRY_AFTER_SECONDS, isD1SchemaBehind, isD1Unavailable } from "../platform/d1-errors";
import { log } from "../platform/log";
import { APPLY_MIGRATIONS_HINT } from "../platform/migrations";

// How a validation target is named in an error path (`query.limit`, `path.eventId`).
const TARGET_PREFIX: Record<string, string> = {
  json: "",
  query: "query.",
  param: "path.",
  header: "header.",
};

function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" || out.endsWith(".") ? String(segment) : `.${String(segment)}`;
  }
  return out === "" ? "(body)" : out.replace(/\.$/, "");
}

/** What an unknown key is called in each target. */
const UNKNOWN_KEY: Record<string, string> = { query: "Unknown query parameter." };

/** The message of an issue: a record's bad key says what a key must be (its key schema's own message). */
function messageOf(issue: z.core.$ZodIssue): string {
  return issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
}

/**
 * One `{ path, message }` per offending field of a zod failure, after
 * `first` (errors found before the schema ran, which win for their path).
 */
function fieldErrors(target: string, issues: readonly z.core.$ZodIssue[], first: FieldError[] = []): FieldError[] {
  const prefix = TARGET_PREFIX[target] ?? `${target}.`;
  const errors = issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          path: formatPath(prefix, [...issue.path, key]),
          message: UNKNOWN_KEY[target] ?? "Unknown field.",
        }))
      : [{ path: formatPath(prefix, issue.path), message: messageOf(issue) }],
  );
  // zod runs every check of a field, so one value can fail several (an empty
  // name is both too short and blank); the contract promises one entry per
  // offending field, so the first failure of each path is kept.
  const seen = new Set<string>();
  return [...first, ...errors].filter((error) => !seen.has(error.path) && seen.add(error.path));
}

/** The query parameters given more than once, but not those unknown anyway (they are named as unknown). */
function repeatedParameters(queries: Record<string, string[]>, issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const unknown = new Set(issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? issue.keys : [])));
  return Object.entries(queries)
    .filter(([name, values]) => values.length > 1 && !unknown.has(name))
    .map(([name, values]) => ({ path: formatPath(TARGET_PREFIX.query!, [name]), message: `Given ${values.length} times: send it once.` }));
}

/** The 400 naming every offending field; `line`: the lowest line of a body of lines (an order's) they are in. */
export function validationProblem(errors: FieldError[], line?: number): ProblemError {
  return new ProblemError(400, {
    type: PROBLEM_TYPES.validation,
    title: "Validation failed",
    detail: `The request has ${errors.length} invalid value${errors.length === 1 ? "" : "s"}.`,
    errors,
    ...(line === undefined ? {} : { extensions: { line } }),
  });
}

/** The lowest index into the body's array `lines` that a failure names, if any. */
function lowestLine(issues: readonly z.core.$ZodIssue[], lines: string): number | undefined {
  const indexes = issues.flatMap((issue) =>
    issue.path[0] === lines && typeof issue.path[1] === "number" ? [issue.path[1]] : [],
  );
  return indexes.length === 0 ? undefined : Math.min(...indexes);
}

/**
 * The validation hook of every OpenAPI route: a failed zod validation
 * becomes a 400 problem. `lines`: the body's array of lines (an order's
 * `tickets`); the problem then names the lowest offending line in `line`.
 */
export function validationHookFor(options: { lines?: string } = {}): Hook<unknown, AppEnv, string, unknown> {
  return (result, c) => {
    const issues = result.success ? [] : result.error.issues;
    // hono hands a repeated parameter to the schema as an array, which it
    // would call the wrong type (or missing): it is named as repeated instead.
    const repeated = result.target === "query" ? repeatedParameters(c.req.queries(), issues) : [];
    if (!result.success || repeated.length > 0) {
      const line = options.lines !== undefined && result.target === "json" ? lowestLine(issues, options.lines) : undefined;
      throw validationProblem(fieldErrors(result.target, issues, repeated), line);
    }
  };
}

/** The app's single error path: every failure leaves as problem+json. */
export const handleError: ErrorHandler<AppEnv> = (err, c) => {
  const requestId = c.var.requestId;
  if (err instanceof ProblemError) {
    return problemResponse(err.status as ContentfulStatusCode, err.problem, requestId);
  }
  if (err instanceof HTTPException && err.status < 500) {
    // Hono's own client errors; the only one reachable here is the JSON
    // parser's "Malformed JSON in request body".
    const malformed = err.status === 400;
    return problemResponse(
      err.status as ContentfulStatusCode,
      {
        // `errors` names the body, so that every 400 carries field errors a
        // client can show the same way.
        ...(malformed
          ? { type: PROBLEM_TYPES.malformedJson, title: "Malformed JSON", errors: [{ path: "(body)", message: "Not valid JSON." }] }
          : {}),
        detail: malformed ? "The request body is not valid JSON." : err.message,
      },
      requestId,
    );
  }
  if (err instanceof GuardRaced) {
    return problemResponse(
      409,
      { detail: "The data this request depends on changed while it ran; nothing was changed. Send it again.", headers: { "Retry-After": "0" } },
      requestId,
    );
  }
  if (isD1Unavailable(err)) {
    // D1 said "try again" (network, reset, overload): the client may, too.
    log.warn("database unavailable", { requestId, error: err instanceof Error ? err.message : String(err) });
    return problemResponse(
      503,
      {
        detail: `The database is unavailable for the moment; retry in ${D1_RETRY_AFTER_SECONDS} seconds.`,
        headers: { "Retry-After": String(D1_RETRY_AFTER_SECONDS) },
      },
      requestId,
    );
  }
  if (isD1SchemaBehind(err)) {
    // A table or column the code needs is missing: an operator's fix, not the
    // client's; the SQLite message (which names it) stays in the log.
    log.error("database schema behind the code", { requestId, error: err instanceof Error ? err.message : String(err) });
    return problemResponse(503, schemaBehindProblem(), requestId);
  }
  log.error("unhandled error", {
    requestId,
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  return problemResponse(
    500,
    { detail: `The request failed. Quote request id ${requestId} when reporting it.` },
    requestId,
  );
};

/**
 * The 503 of a database that lacks migrations: `pending` names them when
 * known (/healthz), `extensions` adds members (its checks).
 */
export function schemaBehindProblem(pending?: readonly string[], extensions?: Record<string, unknown>): ProblemOptions {
  const lacks = pending
    ? `${pending.length} migration${pending.length === 1 ? "" : "s"} this service needs (${pending.join(", ")})`
    : "migrations this service needs";
  return {
    type: PROBLEM_TYPES.schemaBehind,
    title: "Database schema behind",
    detail: `The database lacks ${lacks}. ${APPLY_MIGRATIONS_HINT}`,
    ...(extensions ? { extensions } : {}),
  };
}

export const handleNotFound: NotFoundHandler<AppEnv> = (c) =>
  problemResponse(404, { detail: `No resource at ${c.req.path}.` }, c.var.requestId);

export const handleMethodNotAllowed = (c: Context<AppEnv>, methods: string[]) =>
  problemResponse(
    405,
    {
      detail: `${c.req.method} is not allowed on ${c.req.path}.`,
      headers: { Allow: methods.join(", ") },
    },
    c.var.requestId,
  );
