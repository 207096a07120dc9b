import { OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { validationHookFor } from "./errors";
import { isIsoDate } from "../platform/dates";
import {
  firstInvisibleCharacter,
  invisibleCharacterMessage,
  isMultiLineText,
  isNotBlank,
  isSingleLineText,
  isWellFormedText,
  MULTI_LINE_MESSAGE,
  MULTI_LINE_PATTERN,
  NOT_WELL_FORMED_MESSAGE,
  SINGLE_LINE_MESSAGE,
  SINGLE_LINE_PATTERN,
} from "../platform/text";

/**
 * Every resource router is created here, so all share the validation hook;
 * `lines`: its bodies' array of lines (see `validationHookFor`). Each
 * operation's query parameters are closed (`closeQuery`), unless
 * `ignoreQuery`: a public service route (`/healthz`) that takes none and
 * ignores what a monitor or a browser appends (`?t=…`, a cache-buster).
 */
export function createRouter(options: { lines?: string; ignoreQuery?: boolean } = {}) {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHookFor(options) });
  if (!options.ignoreQuery) {
    const register = router.openapi;
    router.openapi = ((route: RouteConfig, handler: never, hook: never) => register(closeQuery(route), handler, hook)) as typeof register;
  }
  return router;
}

/**
 * A route whose query accepts only the parameters it declares (none when it
 * declares none): its query schema made strict, so that the one validation
 * hook refuses an unknown parameter (`query.limt`) as it refuses an unknown
 * body field, and one given twice (`validationHookFor`); every such route
 * may answer 400, so its document lists the 400.
 */
function closeQuery(route: RouteConfig): RouteConfig {
  const query = route.request?.query ?? z.object({});
  if (!(query instanceof z.ZodObject)) throw new Error(`${route.method} ${route.path}: a query schema must be an object`);
  return {
    ...route,
    request: { ...route.request, query: query.strict() },
    responses: 400 in route.responses ? route.responses : { ...route.responses, ...problemEntries([400]) },
  };
}

export const DateSchema = z
  .string()
  .refine(isIsoDate, { error: "Must be a real calendar date, YYYY-MM-DD." })
  .openapi({ type: "string", format: "date", example: "2023-10-29" });

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** A time of day, 24-hour `HH:mm` (the regex is the document's `pattern`). */
export const TimeSchema = z
  .string()
  .regex(TIME, { error: "Must be a 24-hour time, HH:mm." })
  .openapi({ example: "09:00" });

/** A whole number within [min, max] (a JSON number: no fraction, no string, no null), with the one message that says so. */
export function wholeNumber(min: number, max: number, description: string, example: number) {
  const error = `Must be a whole number from ${min} to ${max}.`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error }).openapi({ description, example });
}

const MAX_PRICE = 1_000_000;

/**
 * True when a number has at most two decimals, i.e. it is exactly a whole
 * number of cents: the cents, divided back, give the very same number. (A
 * tolerance such as |cents - round(cents)| < 1e-6 let 1e-9 through, and it
 * came back as 0, not the price submitted.)
 */
function hasAtMostTwoDecimals(value: number): boolean {
  return Math.round(value * 100) / 100 === value;
}

/** A price: a number from 0 to 1,000,000 with at most two decimals (an event's, a category's). */
export function priceField(description: string, example: number) {
  return z
    .number({ error: "Must be a number." })
    .min(0, { error: `Must be from 0 to ${MAX_PRICE}.` })
    .max(MAX_PRICE, { error: `Must be from 0 to ${MAX_PRICE}.` })
    .refine(hasAtMostTwoDecimals, { error: "Must have at most two decimals." })
    .openapi({ description, format: "float", multipleOf: 0.01, example });
}

/**
 * An RFC 9562 uuid, in any case: version 1 to 8 and variant 8 to b, or the
 * nil or the max uuid. The one expression the server checks and the
 * document publishes as the `pattern` of every uuid.
 */
const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$/;
const UUID_MESSAGE = "Must be a uuid (RFC 9562).";

/** A uuid, compared in lower case as the service stores it. */
export const UuidSchema = z
  .string({ error: UUID_MESSAGE })
  .regex(UUID, { error: UUID_MESSAGE })
  .transform((value) => value.toLowerCase())
  .openapi({ type: "string", format: "uuid", pattern: UUID.source });

const FieldErrorSchema = z
  .object({
    path: z.string().openapi({ example: "dates[1]" }),
    message: z.string().openapi({ example: "Must be a real calendar date, YYYY-MM-DD." }),
  })
  .openapi("FieldError");

/** RFC 9457 problem details, the body of every error response. */
export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: "/problems/validation-error" }),
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.number().int().openapi({ example: 400 }),
    detail: z.string().openapi({ example: "The request has 1 invalid value." }),
    errors: z.array(FieldErrorSchema).optional(),
    requestId: UuidSchema.optional().openapi({ description: "The request's id, as its `X-Request-Id` header." }),
  })
  .openapi("Problem");

const PROBLEM_DESCRIPTIONS = {
  400: "Bad request: malformed JSON (`/problems/malformed-json`), or a value that breaks the schema or a rule its description states, an unknown body field or query parameter, or a query parameter given twice (`/problems/validation-error`; see `errors`).",
  401: "Credentials missing or wrong.",
  403: "The account's role may not do this (`x-roles` lists the roles that may).",
  404: "Not found.",
  409: "A request with the same Idempotency-Key is still being processed.",
  405: "The path does not allow this method; `Allow` lists those it does.",
  413: "Body over 16 KiB.",
  415: "The body is not application/json (UTF-8; another charset is refused).",
  422: "The Idempotency-Key was used before with a different body.",
  429: "Too many failed logins from this client; retry after `Retry-After` seconds.",
  500: "Unexpected failure; `detail` quotes the request id, nothing internal.",
  503: "The database is unavailable or overloaded for a moment; retry after `Retry-After` seconds. `/problems/schema-behind` (the database lacks migrations) or `/problems/not-configured` (a secret or setting this operation needs is missing or malformed): the operator's to fix, `/healthz` says what; nothing was written.",
} as const;

/** The 409 of a schedule or limit change that sold tickets refuse. */
export const changeConflictResponse = {
  description:
    "Nothing was changed. `/problems/tickets-affected`: the change would leave valid tickets without their day or entry slot, or closing at or before their entry time; `affectedTickets` says how many, `dates` which; send it again with `?cancelTickets=true` to cancel them with the change. `/problems/capacity-below-sold`: a limit it sets is below the places already taken on `dates` (the most on one of them: `sold`).",
  content: {
    "application/problem+json": {
      schema: ProblemSchema.extend({
        affectedTickets: z.number().int().optional().openapi({ example: 3 }),
        dates: z.array(DateSchema).optional(),
        sold: z.number().int().optional().openapi({ description: "capacity-below-sold: the most places taken on one of `dates`.", example: 42 }),
      }).openapi("ChangeConflictProblem"),
    },
  },
};

/** What every authenticated /v1.1 operation may answer, whatever it does. */
const EVERY_OPERATION = [429, 500, 503] as const;

type ProblemStatus = keyof typeof PROBLEM_DESCRIPTIONS;

function problemEntries<S extends ProblemStatus>(statuses: S[]) {
  const responses = {} as Record<
    S,
    { description: string; content: { "application/problem+json": { schema: typeof ProblemSchema } } }
  >;
  for (const status of statuses) {
    responses[status] = {
      description: PROBLEM_DESCRIPTIONS[status],
      content: { "application/problem+json": { schema: ProblemSchema } },
    };
  }
  return responses;
}

/**
 * The entry of `status` for a route that also answers problem types of its
 * own with it: the usual description, then `more` (which names them).
 */
export function problemResponseWith(status: ProblemStatus, more: string) {
  const entry = problemEntries([status])[status];
  return { [status]: { ...entry, description: `${entry.description} ${more}` } };
}

/**
 * OpenAPI `responses` entries for the problem statuses a route can answer:
 * those given, and those of `EVERY_OPERATION`.
 */
export function problemResponses<S extends ProblemStatus>(...statuses: S[]) {
  return problemEntries<S | (typeof EVERY_OPERATION)[number]>([...statuses, ...EVERY_OPERATION]);
}

/** The entries of exactly the statuses given: for a public route (no login, so no 429). */
export function publicProblemResponses<S extends ProblemStatus>(...statuses: S[]) {
  return problemEntries(statuses);
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A required `application/json` request body of this schema (an OpenAPI `requestBody`). */
export function jsonRequestBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** The response header of an answer replayed for an Idempotency-Key. */
export const REPLAYED_HEADER = {
  "Idempotent-Replayed": {
    description: "`true` when this is the stored response of an earlier request with the same Idempotency-Key.",
    schema: { type: "string" },
  },
} as const;

/** Operations every /v1.1 route shares: Basic auth. */
export const BASIC_AUTH = [{ MuseumPlaceholderAuth: [] }];

/** `?cancelTickets=true`: a schedule change also cancels the valid tickets it would strand, in the same batch. */
export const CancelTicketsQuerySchema = z.object({
  cancelTickets: z
    .enum(["true", "false"], { error: "Must be true or false." })
    .optional()
    .transform((value) => value === "true")
    .openapi({
      param: {
        name: "cancelTickets",
        in: "query",
        description:
          "`true`: cancel the valid tickets this change leaves without their day, in the same atomic write. Without it such a change is refused with 409.",
      },
      type: "string",
      enum: ["true", "false"],
    }),
});

/**
 * The rules of a text field that its `pattern` and `maxLength` cannot say,
 * in its description (test/contract/generated.ts, STATED, holds every
 * refusal of a schema-valid request to what the document states).
 */
const INVISIBLE_RULES =
  "No invisible characters (zero-width, filler, soft-hyphen, tag and similar; a joiner or variation selector inside an emoji or a name is fine), not only whitespace, no lone surrogate.";
const SINGLE_LINE_RULES = `One line: no control, line-separator or bidirectional-control characters (\`pattern\`). ${INVISIBLE_RULES}`;
const MULTI_LINE_RULES = `Line feeds and tabs allowed; no other control, line-separator or bidirectional-control characters (\`pattern\`). ${INVISIBLE_RULES}`;

/**
 * A required text field of 1 to `max` characters, well-formed Unicode, free
 * of control and bidirectional-control characters (a multi-line field may
 * hold line feeds and tabs), not blank (whitespace and invisible characters
 * alone are blank), and free of invisible characters (src/platform/text.ts).
 * Characters are Unicode code points, as JSON Schema's `maxLength` (which
 * the OpenAPI document announces) counts them; zod's own `.max()` counts
 * UTF-16 units, which would refuse a 200-character name holding emoji that a
 * client checked against the document. The one helper for every free-text
 * field of the API.
 */
export function textField(max: number, doc: { description: string; example: string; multiline?: boolean }) {
  const message = `Must be 1 to ${max} characters.`;
  const [allowed, refusal, pattern, rules] = doc.multiline
    ? [isMultiLineText, MULTI_LINE_MESSAGE, MULTI_LINE_PATTERN, MULTI_LINE_RULES]
    : [isSingleLineText, SINGLE_LINE_MESSAGE, SINGLE_LINE_PATTERN, SINGLE_LINE_RULES];
  return z
    .string()
    .refine((value) => {
      const length = [...value].length;
      return length >= 1 && length <= max;
    }, { error: message, abort: true })
    .refine(isWellFormedText, { error: NOT_WELL_FORMED_MESSAGE, abort: true })
    .refine(allowed, { error: refusal, abort: true })
    .refine(isNotBlank, { error: "Must not be blank.", abort: true })
    .superRefine((value, ctx) => {
      const invisible = firstInvisibleCharacter(value);
      if (invisible) ctx.addIssue({ code: "custom", message: invisibleCharacterMessage(invisible) });
    })
    .openapi({ description: `${doc.description} ${rules}`, example: doc.example, minLength: 1, maxLength: max, pattern });
}
