import { z } from "@hono/zod-openapi";
import { OrderStatusSchema } from "../sales/schemas";
import { FeedNextSchema } from "../tickets/feed";
import { CancelledBySchema, CancelSourceSchema, CurrencySchema, RefundSchema, TicketIdSchema, TicketStatusSchema, Timestamp } from "../tickets/schemas";
import { DateSchema, textField, UuidSchema } from "../http/openapi";

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

export const CancellationFeedSchema = z
  .object({
    cancellations: z.array(
      z.object({
        ticketId: TicketIdSchema,
        orderId: UuidSchema.optional().openapi({ description: "The order the ticket was bought in, if any." }),
        ticketDate: DateSchema,
        cancelledAt: Timestamp,
        source: CancelSourceSchema,
        by: CancelledBySchema,
        refund: RefundSchema,
        currency: CurrencySchema,
      }),
    ).openapi({ description: "At most 1,000, in the order they were written." }),
    next: FeedNextSchema,
  })
  .openapi("CancellationFeed", { description: "Ticket cancellations written after the cursor: what a shop refunds." });
export type CancellationFeed = z.infer<typeof CancellationFeedSchema>;
