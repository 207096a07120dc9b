import { z } from "@hono/zod-openapi";

/**
 * An integer query parameter. Only plain decimal digits are accepted: `1e1`,
 * `0x10`, ` 5` or `1.0` are refused rather than guessed at.
 */
function integerQueryParam(opts: {
  name: string;
  description: string;
  min: number;
  max: number;
  default: number;
}) {
  const message = `Must be an integer from ${opts.min} to ${opts.max}.`;
  return z
    .string()
    .regex(/^[0-9]{1,10}$/, { error: message })
    .transform(Number)
    .pipe(z.number().int().min(opts.min, { error: message }).max(opts.max, { error: message }))
    .optional()
    .transform((value) => value ?? opts.default)
    .openapi({
      type: "integer",
      minimum: opts.min,
      maximum: opts.max,
      default: opts.default,
      param: { name: opts.name, in: "query", description: opts.description },
    });
}

/** `page` and `limit` query parameters, shared by every paged list. */
export const PaginationQuerySchema = z.object({
  page: integerQueryParam({
    name: "page",
    description: "Page number to retrieve (1 or more).",
    min: 1,
    max: 1_000_000,
    default: 1,
  }),
  limit: integerQueryParam({
    name: "limit",
    description: "Number of items per page (1 to 30).",
    min: 1,
    max: 30,
    default: 10,
  }),
});

export type Page = { page: number; limit: number };

export function pageOffset({ page, limit }: Page): number {
  return (page - 1) * limit;
}

/**
 * RFC 8288 `Link` header with `next` / `prev` for a page. `hasNext` is known
 * because lists fetch one row more than the page holds.
 */
export function paginationLink(url: string, { page, limit }: Page, hasNext: boolean): string | undefined {
  const link = (rel: string, target: number) => {
    const u = new URL(url);
    u.searchParams.set("page", String(target));
    u.searchParams.set("limit", String(limit));
    return `<${u.pathname}${u.search}>; rel="${rel}"`;
  };
  const links = [
    ...(hasNext ? [link("next", page + 1)] : []),
    ...(page > 1 ? [link("prev", page - 1)] : []),
  ];
  return links.length > 0 ? links.join(", ") : undefined;
}
