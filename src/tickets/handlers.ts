import type { Context } from "hono";
import type { AppEnv } from "../env";
import { settingsOf } from "../settings";
import type { AppRouteHandler } from "../http/types";
import { museumNowIn, todayIn } from "../platform/dates";
import { readFresh } from "../platform/fresh-read";
import { D1_BOOKMARK_HEADER } from "../middleware/d1-session";
import { admit } from "./admission/admit";
import { attendanceOn } from "./admission/attendance";
import {
  loadTicketImage,
  matchesIfNoneMatch,
  prerenderSoldTickets,
  signingKeysOf,
  ticketImageEtag,
} from "./image";
import { lookUpTicketForImage } from "./lookup";
import type * as routes from "./routes";
import { availabilityOn } from "./sale/availability";
import { type Sale, sell } from "./sale/sell";
import { currencyOf, saleContextOf } from "./sale/context";
import { type CancellationContext, cancelTicketAtBoxOffice } from "./cancellation";
import { ticketNotFound } from "./problems";
import type { BuyMuseumTicketsResponse } from "./schemas";
import { ticketStatus } from "./status";

const MESSAGES = {
  general: "Museum general entry ticket purchased",
  event: "Museum special event ticket purchased",
} as const;

/** `POST /tickets`' answer (the 1.1.1 shape): the one ticket sold. */
function ticketPurchased({ tickets: [ticket] }: Sale): BuyMuseumTicketsResponse {
  const { ticketId, ticketType, ticketDate, eventName, entryTime, confirmationCode } = ticket!;
  return {
    message: MESSAGES[ticketType],
    ticketId,
    ...(eventName === undefined ? {} : { eventName }),
    ticketType,
    ticketDate,
    ...(entryTime === undefined ? {} : { entryTime }),
    confirmationCode,
  };
}

export const buyMuseumTickets: AppRouteHandler<typeof routes.buyMuseumTickets> = async (c) => {
  const purchase = c.req.valid("json");
  const { answer, replayed } = await sell(
    c.var.db,
    { lines: [purchase], email: purchase.email, phone: purchase.phone, addressing: "body", body: purchase },
    saleContextOf(c, { operation: "buyMuseumTickets", key: c.req.valid("header")["idempotency-key"] }),
    ticketPurchased,
  );
  // A replay's image was prepared with its first response.
  if (!replayed && settingsOf(c.env).PRERENDER_TICKET_IMAGES) {
    c.executionCtx.waitUntil(prerenderSoldTickets([answer], c.var.principal.name, signingKeysOf(c.env)));
  }
  // Buyer data never goes into a shared cache.
  c.header("Cache-Control", "no-store");
  c.header("Location", `${new URL(c.req.url).pathname}/${answer.ticketId}/qr`);
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(answer, 201);
};

export const getAvailability: AppRouteHandler<typeof routes.getAvailability> = async (c) => {
  const museumNow = museumNowIn(settingsOf(c.env).MUSEUM_TIMEZONE);
  c.header("Cache-Control", "no-store");
  return c.json(await availabilityOn(c.var.db, c.req.valid("query").date ?? museumNow.today, museumNow), 200);
};

export const getTicketCode: AppRouteHandler<typeof routes.getTicketCode> = async (c) => {
  const { ticketId } = c.req.valid("param");
  // A client that sends a session bookmark reads its own writes (README, "Read
  // replicas"): only a request without one may be answered from this isolate's memory.
  const mayRecall = c.req.header(D1_BOOKMARK_HEADER) === undefined;
  const ticket = await readFresh(c.var, (db) => lookUpTicketForImage(db, ticketId, c.var.principal, mayRecall));
  if (!ticket) throw ticketNotFound(ticketId);

  const keys = signingKeysOf(c.env);
  const etag = await ticketImageEtag(ticket, keys);
  // Kiosks may keep the image but must revalidate it, so a cancellation shows.
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesIfNoneMatch(c.req.header("If-None-Match"), etag)) {
    return c.body(null, 304, headers);
  }
  const { png } = await loadTicketImage(ticket, keys, etag, (promise) => c.executionCtx.waitUntil(promise));
  return c.body(png, 200, { ...headers, "Content-Type": "image/png" });
};

export const getTicketStatus: AppRouteHandler<typeof routes.getTicketStatus> = async (c) => {
  const { ticketId } = c.req.valid("param");
  const status = await readFresh(c.var, (db) => ticketStatus(db, ticketId, c.var.principal, currencyOf(c.env)));
  if (!status) throw ticketNotFound(ticketId);
  c.header("Cache-Control", "no-store");
  return c.json(status, 200);
};

export const admitTicket: AppRouteHandler<typeof routes.admitTicket> = async (c) => {
  const now = new Date();
  const { today, time } = museumNowIn(settingsOf(c.env).MUSEUM_TIMEZONE, now);
  const { admission, replayed } = await admit(c.var.db, c.req.valid("json").code, {
    keys: signingKeysOf(c.env),
    today,
    time,
    earlyMinutes: settingsOf(c.env).ADMISSION_EARLY_MINUTES,
    gate: c.var.principal.name,
    now,
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  c.header("Cache-Control", "no-store");
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(admission, 201);
};

/** Who cancels, when and why, as a box-office cancellation request (`POST …/cancellation`) says. */
export function cancellationContextOf(
  c: Context<AppEnv>,
  request: { reason: string | undefined; idempotencyKey: string | undefined },
): CancellationContext {
  const settings = settingsOf(c.env);
  return {
    principal: c.var.principal,
    museumNow: museumNowIn(settings.MUSEUM_TIMEZONE),
    reason: request.reason,
    currency: currencyOf(c.env),
    idempotencyKey: request.idempotencyKey,
  };
}

export const cancelTicket: AppRouteHandler<typeof routes.cancelTicket> = async (c) => {
  const context = cancellationContextOf(c, {
    reason: c.req.valid("json").reason,
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  const { cancellation, replayed } = await cancelTicketAtBoxOffice(c.var.db, c.req.valid("param").ticketId, context);
  c.header("Cache-Control", "no-store");
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(cancellation, 200);
};

export const getAttendanceSummary: AppRouteHandler<typeof routes.getAttendanceSummary> = async (c) => {
  const date = c.req.valid("query").date ?? todayIn(settingsOf(c.env).MUSEUM_TIMEZONE);
  c.header("Cache-Control", "no-store");
  return c.json(await attendanceOn(c.var.db, date), 200);
};
