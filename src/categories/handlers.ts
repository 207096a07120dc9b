import type { AppRouteHandler } from "../http/types";
import * as service from "./service";
import type * as routes from "./routes";

export const listTicketCategories: AppRouteHandler<typeof routes.listTicketCategories> = async (c) =>
  c.json(await service.listCategories(c.var.db, c.req.valid("query").includeRetired), 200);

export const putTicketCategory: AppRouteHandler<typeof routes.putTicketCategory> = async (c) => {
  const { categoryId } = c.req.valid("param");
  const { category, created } = await service.putCategory(c.var.db, categoryId, c.req.valid("json"));
  return created ? c.json(category, 201) : c.json(category, 200);
};

export const retireTicketCategory: AppRouteHandler<typeof routes.retireTicketCategory> = async (c) => {
  await service.retireCategory(c.var.db, c.req.valid("param").categoryId);
  return c.body(null, 204);
};
