import type { Context, TypedResponse } from "hono";
import type { AppEnv } from "../env";
import type { AppRouteHandler } from "../http/types";
import { sha256Hex } from "../platform/crypto";
import { todayIn } from "../platform/dates";
import { ProblemError } from "../http/problem";
import { eventNotFound } from "../events/problems";
import * as idempotency from "../idempotency/queries";
import { newConfirmationCode } from "./confirmation-code";
import { loadTicketImage, matchesIfNoneMatch, ticketImageEtag } from "./image";
import { recallTicket, rememberTicket } from "./lookup-cache";
import { D1_BOOKMARK_HEADER } from "../middleware/d1-session";
import { checkTicketSale, museumClosed } from "./purchase";
import { signingKeysFromEnv } from "./qr";
import * as queries from "./queries";
import type * as routes from "./routes";
import type { BuyMuseumTicketsRequest, BuyMuseumTicketsResponse } from "./schemas";

const MESSAGES = {
  general: "Museum general entry ticket purchased",
  event: "Museum special event ticket purchased",
} as const;

// A clash of two random 11-character codes is astronomically rare; one retry
// with a fresh code is plenty.
const CODE_ATTEMPTS = 2;

/** Key-order-independent JSON, so the same body always hashes the same. */
function canonicalJson(body: BuyMuseumTicketsRequest): string {
  return JSON.stringify(Object.fromEntries(Object.entries(body).sort(([a], [b]) => (a < b ? -1 : 1))));
}

function isConfirmationCodeClash(error: unknown): boolean {
  return error instanceof Error && error.message.includes("tickets.confirmation_code");
}

/**
 * Sends a purchase response from its serialised form, so that a replay is the
 * first response byte for byte. The cast tells the typed router it is JSON.
 */
function sendPurchase(c: Context<AppEnv>, responseBody: string, replayed: boolean) {
  const { ticketId } = JSON.parse(responseBody) as BuyMuseumTicketsResponse;
  return c.body(responseBody, 201, {
    "Content-Type": "application/json",
    Location: `${new URL(c.req.url).pathname}/${ticketId}/qr`,
    ...(replayed ? { "Idempotent-Replayed": "true" } : {}),
  }) as unknown as TypedResponse<BuyMuseumTicketsResponse, 201, "json">;
}

export const buyMuseumTickets: AppRouteHandler<typeof routes.buyMuseumTickets> = async (c) => {
  const request = c.req.valid("json");
  const key = c.req.valid("header")["idempotency-key"];
  const db = c.var.db;
  const scope = key === undefined ? undefined : { accountName: c.var.principal.name, key };
  // Buyer data never goes into a shared cache.
  c.header("Cache-Control", "no-store");

  if (scope) {
    const claim = await idempotency.claimIdempotencyKey(db, scope, await sha256Hex(canonicalJson(request)));
    switch (claim.kind) {
      case "replay":
        return sendPurchase(c, claim.responseBody, true);
      case "in-progress":
        throw new ProblemError(409, {
          detail: "A purchase with this Idempotency-Key is still being processed; retry shortly.",
          headers: { "Retry-After": "1" },
        });
      case "mismatch":
        throw new ProblemError(422, {
          detail: "This Idempotency-Key was already used with a different request body.",
        });
      case "claimed":
        break;
    }
  }

  try {
    const { eventName } = await checkTicketSale(db, request, todayIn(c.env.MUSEUM_TIMEZONE));
    const ticketId = crypto.randomUUID();
    for (let attempt = 1; ; attempt += 1) {
      const confirmationCode = newConfirmationCode(request.ticketType);
      const response: BuyMuseumTicketsResponse = {
        message: MESSAGES[request.ticketType],
        ticketId,
        ...(eventName === undefined ? {} : { eventName }),
        ticketType: request.ticketType,
        ticketDate: request.ticketDate,
        confirmationCode,
      };
      const responseBody = JSON.stringify(response);
      try {
        const written = await queries.insertTicket(
          db,
          {
            ...request,
            ticketId,
            confirmationCode,
            generalPriceCents: Number(c.env.GENERAL_TICKET_PRICE_CENTS),
            soldBy: c.var.principal.name,
          },
          scope && { scope, responseBody },
        );
        if (!written) {
          // The insert checks the open day itself; an event ticket only fails
          // here when its event was cancelled (or lost the date) since the check.
          throw request.ticketType === "general" ? museumClosed(request.ticketDate) : eventNotFound(request.eventId!);
        }
      } catch (error) {
        if (attempt < CODE_ATTEMPTS && isConfirmationCodeClash(error)) continue;
        throw error;
      }
      return sendPurchase(c, responseBody, false);
    }
  } catch (error) {
    if (scope) await idempotency.releaseIdempotencyKey(db, scope);
    throw error;
  }
};

export const getTicketCode: AppRouteHandler<typeof routes.getTicketCode> = async (c) => {
  const { ticketId } = c.req.valid("param");
  // A client that sends a session bookmark reads its own writes (README, "Read
  // replicas"): only a request without one may be answered from this isolate's memory.
  const mayRecall = c.req.header(D1_BOOKMARK_HEADER) === undefined;
  let ticket = mayRecall ? recallTicket(ticketId) : undefined;
  if (!ticket) {
    ticket = (await queries.findTicketForImage(c.var.db, ticketId)) ?? undefined;
    if (!ticket) throw new ProblemError(404, { detail: `No ticket with id ${ticketId}.` });
    rememberTicket(ticket);
  }

  const keys = signingKeysFromEnv(c.env);
  const etag = await ticketImageEtag(ticket, keys);
  // Kiosks may keep the image but must revalidate it, so a cancellation shows.
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesIfNoneMatch(c.req.header("If-None-Match"), etag)) {
    return c.body(null, 304, headers);
  }
  const { png } = await loadTicketImage(ticket, keys, etag, (promise) => c.executionCtx.waitUntil(promise));
  return c.body(png, 200, { ...headers, "Content-Type": "image/png" });
};
