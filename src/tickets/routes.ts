import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, jsonContent, problemResponses } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { ConfirmationCodeQuerySchema, TicketIdParamsSchema, TicketStatusSchema } from "./schemas";

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

export const findTicketByConfirmationCode = createRoute({
  method: "get",
  path: "/tickets",
  operationId: "findTicketByConfirmationCode",
  summary: "Find a ticket by its confirmation code",
  description:
    "The status of the ticket a visitor shows (with `orderId` when it was bought in an order), as `GET /tickets/{ticketId}` answers it. The code is matched trimmed and in lower case. Admin and box-office: any ticket; sales: only tickets it sold itself (another account's ticket is 404, as an unknown code). The code never appears in a log line.",
  tags: ["Admissions"],
  security: BASIC_AUTH,
  ...staff,
  request: { query: ConfirmationCodeQuerySchema },
  responses: {
    200: jsonContent(TicketStatusSchema, "Success."),
    ...problemResponses(400, 401, 403, 404),
  },
});
