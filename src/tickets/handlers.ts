import type { AppRouteHandler } from "../http/types";
import { readFresh } from "../platform/fresh-read";
import { currencyOf } from "./currency";
import { ticketNotFound } from "./problems";
import { ticketStatus } from "./status";
import type * as routes from "./routes";

export const getTicketStatus: AppRouteHandler<typeof routes.getTicketStatus> = async (c) => {
  const { ticketId } = c.req.valid("param");
  const status = await readFresh(c.var, (db) => ticketStatus(db, ticketId, c.var.principal, currencyOf(c.env)));
  if (!status) throw ticketNotFound(ticketId);
  c.header("Cache-Control", "no-store");
  return c.json(status, 200);
};
