import { z } from "@hono/zod-openapi";
import { EventIdSchema } from "../../events/schemas";
import { DateSchema, TimeSchema, UuidSchema } from "../../http/openapi";
import {
  CurrencySchema,
  EmailSchema,
  PhoneSchema,
  Price,
  RefundSchema,
  TicketIdSchema,
  TicketLineRequestSchema,
  TicketStatusSchema,
  Timestamp,
} from "../schemas";

/** The most lines an order may have (a school class). */
const MAX_ORDER_LINES = 50;

const linesMessage = `Must be 1 to ${MAX_ORDER_LINES} tickets.`;

export const OrderRequestSchema = z
  .strictObject({
    email: EmailSchema,
    phone: PhoneSchema.optional(),
    tickets: z
      .array(TicketLineRequestSchema, { error: linesMessage })
      .min(1, { error: linesMessage })
      .max(MAX_ORDER_LINES, { error: linesMessage })
      .openapi({ description: "The tickets, each following the rules of `POST /tickets`; sold all or nothing." }),
  })
  .openapi("OrderRequest", { description: "Several tickets for one buyer, bought in one purchase." });
type OrderRequest = z.infer<typeof OrderRequestSchema>;

const OrderIdSchema = UuidSchema.openapi("OrderId", {
  description: "Unique identifier of an order.",
  example: "3f0c9a52-5a3b-4f7e-9d7b-1f1c2e9b6a10",
});

export const OrderIdParamsSchema = z.object({
  orderId: OrderIdSchema.openapi({ param: { name: "orderId", in: "path" } }),
});

const Total = Price.openapi({ description: "The sum of the tickets' prices as sold, in the museum's currency.", example: 100 });

export const OrderSchema = z
  .object({
    orderId: OrderIdSchema,
    totalPrice: Total,
    currency: CurrencySchema,
    tickets: z.array(
      z.object({
        ticketId: TicketIdSchema,
        ticketType: z.enum(["event", "general"]),
        ticketDate: DateSchema,
        eventId: EventIdSchema.optional(),
        eventName: z.string().optional(),
        entryTime: TimeSchema.optional(),
        price: Price,
        confirmationCode: z.string().openapi({ example: "ticket-general-e5e5c6-dce78" }),
      }),
    ),
  })
  .openapi("Order", { description: "An order as sold: its tickets in the order of the lines." });
export type Order = z.infer<typeof OrderSchema>;

export const OrderStatusSchema = z
  .object({
    orderId: OrderIdSchema,
    createdAt: Timestamp,
    totalPrice: Total,
    currency: CurrencySchema,
    tickets: z.array(TicketStatusSchema).openapi({ description: "Each ticket's status, in the order of the lines; refunds show here." }),
  })
  .openapi("OrderStatus", { description: "An order and each of its tickets' status; never the buyer's contact details." });
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

export const OrderCancellationSchema = OrderStatusSchema.extend({
  refund: RefundSchema.openapi({ description: "What is owed back for the tickets this cancellation took." }),
}).openapi("OrderCancellation", { description: "The order after its cancellation, and the refund of the tickets cancelled now." });
export type OrderCancellation = z.infer<typeof OrderCancellationSchema>;
