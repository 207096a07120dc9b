import { z } from "@hono/zod-openapi";
import { textField } from "../http/openapi";
import { OrderStatusSchema } from "../sales/schemas";
import { RefundSchema, TicketStatusSchema } from "../tickets/schemas";

export const CancellationRequestSchema = z
  .strictObject({
    reason: textField(200, { description: "Why the ticket is given back (kept in the ticket's status).", example: "Visitor ill" }).optional(),
  })
  .openapi("CancellationRequest", { description: "A box-office cancellation; send `{}` when there is no reason to record." });

export const TicketCancellationSchema = TicketStatusSchema.extend({
  refund: RefundSchema.openapi({ description: "What is owed back for this cancellation: the price recorded at the sale." }),
}).openapi("TicketCancellation", { description: "The ticket as cancelled now, and its refund." });
export type TicketCancellation = z.infer<typeof TicketCancellationSchema>;

export const OrderCancellationSchema = OrderStatusSchema.extend({
  refund: RefundSchema.openapi({ description: "What is owed back for the tickets this cancellation took." }),
}).openapi("OrderCancellation", { description: "The order after its cancellation, and the refund of the tickets cancelled now." });
export type OrderCancellation = z.infer<typeof OrderCancellationSchema>;
