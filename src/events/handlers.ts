import type { AppRouteHandler } from "../http/types";
import { addDays } from "../platform/dates";
import { validationProblem } from "../http/errors";
import { pageOffset, paginationLink } from "../http/pagination";
import type { EventTickets } from "./followers";
import { eventNotFound } from "./problems";
import { publishDeliveries } from "../webhooks/outbox";
import * as service from "./service";
import type * as routes from "./routes";

const DEFAULT_WINDOW_DAYS = 7;

export const createSpecialEvent: AppRouteHandler<typeof routes.createSpecialEvent> = async (c) => {
  const { event, deliveryIds } = await service.createEvent(c.var.db, c.req.valid("json"));
  publishDeliveries(c, deliveryIds);
  c.header("Location", `${new URL(c.req.url).pathname}/${event.eventId}`);
  return c.json(event, 201);
};

export const listSpecialEvents: AppRouteHandler<typeof routes.listSpecialEvents> = async (c) => {
  const query = c.req.valid("query");
  const startDate = query.startDate ?? c.var.config.museumNow().today;
  const endDate = query.endDate ?? addDays(startDate, DEFAULT_WINDOW_DAYS);
  if (endDate < startDate) {
    throw validationProblem([
      { path: "query.endDate", message: `Must not be before startDate (${startDate}).` },
    ]);
  }
  const page = { page: query.page, limit: query.limit };
  // One row more than the page tells whether a next page exists.
  const rows = await service.listEvents(c.var.db, {
    startDate,
    endDate,
    limit: page.limit + 1,
    offset: pageOffset(page),
  });
  const url = new URL(c.req.url);
  url.searchParams.set("startDate", startDate);
  url.searchParams.set("endDate", endDate);
  const link = paginationLink(url.href, page, rows.length > page.limit);
  if (link) c.header("Link", link);
  return c.json(rows.slice(0, page.limit), 200);
};

export const getSpecialEvent: AppRouteHandler<typeof routes.getSpecialEvent> = async (c) => {
  const { eventId } = c.req.valid("param");
  const event = await service.findEvent(c.var.db, eventId);
  if (!event) throw eventNotFound(eventId);
  return c.json(event, 200);
};

export const updateSpecialEvent =
  (tickets: EventTickets): AppRouteHandler<typeof routes.updateSpecialEvent> =>
  async (c) => {
    const { eventId } = c.req.valid("param");
    const { cancelTickets } = c.req.valid("query");
    const today = c.var.config.museumNow().today;
    const change = await service.updateEvent(c.var.db, eventId, c.req.valid("json"), { cancelTickets, today }, tickets);
    if (!change) throw eventNotFound(eventId);
    publishDeliveries(c, change.deliveryIds);
    return c.json(change.event, 200);
  };

export const deleteSpecialEvent =
  (tickets: EventTickets): AppRouteHandler<typeof routes.deleteSpecialEvent> =>
  async (c) => {
    const { eventId } = c.req.valid("param");
    if (!(await service.cancelEvent(c.var.db, eventId, c.var.config.museumNow().today, tickets))) throw eventNotFound(eventId);
    return c.body(null, 204);
  };
