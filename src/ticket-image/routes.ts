import { createRoute } from "@hono/zod-openapi";
import { BASIC_AUTH, problemResponses, ProblemSchema } from "../http/openapi";
import { allowRoles } from "../middleware/require-role";
import { TicketIdParamsSchema } from "../tickets/schemas";

const staff = allowRoles("admin", "sales", "box-office");

export const getTicketCode = createRoute({
  method: "get",
  path: "/tickets/{ticketId}/qr",
  operationId: "getTicketCode",
  summary: "Get ticket QR code",
  description:
    "Return an image of your ticket with scannable QR code. Used for event entry. The QR code carries a signed token naming the ticket; a cancelled ticket's image says CANCELLED. A ticket never sold (held, or its hold released or run out) has no image and no code: 409. Send `If-None-Match` with the last `ETag` to get `304` while the ticket is unchanged. Admin and box-office: any ticket; sales: only tickets it sold itself (another account's ticket is 404, as an unknown id).",
  tags: ["Tickets"],
  security: BASIC_AUTH,
  ...staff,
  request: { params: TicketIdParamsSchema },
  responses: {
    200: {
      description: "Scannable event ticket in image format.",
      content: {
        "image/png": {
          schema: {
            type: "string",
            format: "binary",
            description: "Image of a ticket with a QR code used for museum or event entry.",
          },
        },
      },
      headers: {
        ETag: { description: "Changes whenever the image would.", schema: { type: "string" } },
        "Cache-Control": { description: "`private, no-cache`: keep it, revalidate with If-None-Match.", schema: { type: "string" } },
      },
    },
    304: { description: "The image has not changed since the ETag sent in If-None-Match." },
    409: {
      description:
        "`/problems/ticket-held`: the ticket is held for an order being paid for; it has no image and no code until the order is confirmed. `/problems/hold-ended`: the ticket's hold was released or ran out; it was never sold, so it has no image and no code (unless a late confirmation of its order sells it).",
      content: { "application/problem+json": { schema: ProblemSchema } },
    },
    ...problemResponses(400, 401, 403, 404),
  },
});
