import type { AppRouteHandler } from "../http/types";
import { readFresh } from "../platform/fresh-read";
import { need } from "../configuration";
import { confirmationCodeNotFound, ticketNotFound } from "./problems";
import { ticketStatus, ticketStatusByConfirmationCode } from "./status";
import type * as routes from "./routes";

export const getTicketStatus: AppRouteHandler<typeof routes.getTicketStatus> = async (c) => {
  const { ticketId } = c.req.valid("param");
  const { currency } = need(c.var.config, "currency");
  const status = await readFresh(c.var, (db) => ticketStatus(db, ticketId, c.var.principal, currency));
  if (!status) throw ticketNotFound(ticketId);
  c.header("Cache-Control", "no-store");
  return c.json(status, 200);
};

export const findTicketByConfirmationCode: AppRouteHandler<typeof routes.findTicketByConfirmationCode> = async (c) => {
  const { confirmationCode } = c.req.valid("query");
  const { currency } = need(c.var.config, "currency");
  const status = await readFresh(c.var, (db) => ticketStatusByConfirmationCode(db, confirmationCode, c.var.principal, currency));
  if (!status) throw confirmationCodeNotFound();
  c.header("Cache-Control", "no-store");
  return c.json(status, 200);
};
