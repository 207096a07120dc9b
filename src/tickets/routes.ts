import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, problemResponses } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { TicketIdParamsSchema, TicketStatusSchema } from "./schemas";

const staff = allowRoles("admin", "sales", "box-office");

export const getTicketStatus = createRoute({
  method: "get",
  path: "/tickets/{ticketId}",
  operationId: "getTicketStatus",
  summary: "Get a ticket's status",
  description:
    "Whether a ticket is `valid`, `admitted` (with `admittedAt`) or `cancelled` (with `cancelledAt`). Never the buyer's e-mail or phone. Admin and box-office: any ticket; sales: only tickets it sold itself (another account's ticket is 404, as an unknown id).",
  tags: ["Admissions"],
  security: BASIC_AUTH,
  ...staff,
  request: { params: TicketIdParamsSchema },
  responses: {
    200: jsonContent(TicketStatusSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});
