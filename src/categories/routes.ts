import { createRoute } from "@hono/zod-openapi";
import { allowRoles } from "../middleware/require-role";
import { BASIC_AUTH, jsonContent, jsonRequestBody, ProblemSchema, problemResponses } from "../http/openapi";
import { CategoryIdParamsSchema, CategoryListSchema, CategorySchema, ListCategoriesQuerySchema, PutCategoryRequestSchema } from "./schemas";

const tags = ["Ticket categories"];
const adminOnly = allowRoles("admin");
const staff = allowRoles("admin", "box-office", "sales");

/** The 409 of a change that would leave the default category accompanied, retired or missing. */
const defaultCategoryResponse = {
  description: "`/problems/default-category`: the default category is never accompanied nor retired, and stays the default until another one is made the default. Nothing was changed.",
  content: { "application/problem+json": { schema: ProblemSchema } },
};

export const listTicketCategories = createRoute({
  method: "get",
  path: "/ticket-categories",
  operationId: "listTicketCategories",
  summary: "List ticket categories",
  description: "The active ticket categories (adult, child, member…) and their general-admission prices, by `categoryId`; `includeRetired=true` adds the retired ones.",
  tags,
  security: BASIC_AUTH,
  ...staff,
  request: { query: ListCategoriesQuerySchema },
  responses: {
    200: jsonContent(CategoryListSchema, "Success."),
    ...problemResponses(400, 401, 403),
  },
});

export const putTicketCategory = createRoute({
  method: "put",
  path: "/ticket-categories/{categoryId}",
  operationId: "putTicketCategory",
  summary: "Create or replace a ticket category",
  description:
    "Creates (201) or replaces (200) a category as a whole; a retired one comes back. Prices of tickets already sold never change. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { params: CategoryIdParamsSchema, body: jsonRequestBody(PutCategoryRequestSchema) },
  responses: {
    200: jsonContent(CategorySchema, "The category was replaced."),
    201: jsonContent(CategorySchema, "The category was created."),
    409: defaultCategoryResponse,
    ...problemResponses(400, 401, 403, 413, 415),
  },
});

export const retireTicketCategory = createRoute({
  method: "delete",
  path: "/ticket-categories/{categoryId}",
  operationId: "retireTicketCategory",
  summary: "Retire a ticket category",
  description: "No longer sold; never deleted (sold tickets keep it, `PUT` brings it back). The default cannot be retired. Admin only.",
  tags,
  security: BASIC_AUTH,
  ...adminOnly,
  request: { params: CategoryIdParamsSchema },
  responses: {
    204: { description: "Retired." },
    409: defaultCategoryResponse,
    ...problemResponses(400, 401, 403, 404),
  },
});
