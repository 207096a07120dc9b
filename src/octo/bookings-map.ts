// An order as an OCTO booking: its state, its contact, its availability
// (from its first ticket: a booking is one product, option and
// availability), and one unit item per ticket, a sold one carrying its code.
import { parsePlan } from "../hours/statements";
import { orderStateFrom, type OrderRecord } from "../sales/orders";
import { buyerDetailsOf } from "../sales/statements";
import { type CodeSigner, signTicketCode } from "../ticket-image";
import type { TicketRow } from "../tickets/statements/rows";
import { ticketStatusOf } from "../tickets/status";
import { availabilityIdOf, eventWindow, generalWindow } from "./availability";
import { DEFAULT_OPTION_ID, GENERAL_PRODUCT_ID } from "./schemas";
import { type Booking, type BookingStatus, type Contact, type UnitItem } from "./booking-schemas";

/** What mapping a booking needs beyond its record. */
export type BookingContext = {
  timeZone: string;
  /** The signer of sold tickets' codes. */
  signer: CodeSigner;
};

const NO_CONTACT: Contact = {
  fullName: null,
  firstName: null,
  lastName: null,
  emailAddress: null,
  phoneNumber: null,
  locales: [],
  postalCode: null,
  country: null,
  notes: null,
};

function contactOf(record: OrderRecord): Contact {
  const details = buyerDetailsOf(record.order);
  return {
    fullName: details.fullName ?? null,
    firstName: details.firstName ?? null,
    lastName: details.lastName ?? null,
    emailAddress: record.buyer.email,
    phoneNumber: record.buyer.phone,
    locales: details.locales ?? [],
    postalCode: details.postalCode ?? null,
    country: details.country ?? null,
    notes: details.notes ?? null,
  };
}

/** A ticket's status in OCTO's terms. */
function unitStatusOf(ticket: TicketRow, currency: string): BookingStatus {
  const status = ticketStatusOf(ticket, currency);
  switch (status.status) {
    case "held":
      return "ON_HOLD";
    case "valid":
      return "CONFIRMED";
    case "admitted":
      return "REDEEMED";
    case "cancelled":
      return status.cancellation?.source === "hold-expired" ? "EXPIRED" : "CANCELLED";
  }
}

/** The availability a booking's first ticket is for. */
function availabilityOf(record: OrderRecord, timeZone: string): Booking["availability"] {
  const first = record.tickets[0];
  if (!first) return null;
  const date = first.ticket_date;
  const day = record.dayPlans.find((row) => row.ticket_date === date && row.entry_time === first.entry_time);
  const plan = parsePlan(day?.plan ?? null);
  const slot = first.entry_time === null || !day?.slot_end ? null : { start: first.entry_time, end: day.slot_end };
  const window = first.ticket_type === "event" || plan === null ? eventWindow(date) : generalWindow(date, plan, slot);
  const start = availabilityIdOf(timeZone, window.start);
  return { id: start, localDateTimeStart: start, localDateTimeEnd: availabilityIdOf(timeZone, window.end), allDay: window.allDay, openingHours: window.openingHours };
}

/** The latest of some timestamps (RFC 3339 UTC compare as text). */
const latest = (times: (string | null)[]) => times.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);

/** An order's record as an OCTO booking; a sold ticket's code is signed now (one signature per sold ticket). */
export async function bookingOf(record: OrderRecord, context: BookingContext): Promise<Booking> {
  const { order, tickets } = record;
  // Statuses of tickets are named in OCTO's terms only; the currency is no part of them.
  const unitStatuses = tickets.map((ticket) => unitStatusOf(ticket, ""));
  const state = orderStateFrom(order.status, tickets[0]?.order_hold_live === 1);
  const live = unitStatuses.filter((status) => status !== "CANCELLED" && status !== "EXPIRED");
  const status: BookingStatus =
    state === "held" ? "ON_HOLD"
    : state === "expired" ? "EXPIRED"
    : state === "released" || live.length === 0 ? "CANCELLED"
    : live.every((s) => s === "REDEEMED") ? "REDEEMED"
    : "CONFIRMED";
  const codes = await Promise.all(
    tickets.map((ticket, i) =>
      unitStatuses[i] === "CONFIRMED" || unitStatuses[i] === "REDEEMED"
        ? signTicketCode(
            {
              ticketId: ticket.ticket_id,
              ticketType: ticket.ticket_type,
              ticketDate: ticket.ticket_date,
              category: ticket.category,
              ...(ticket.event_id === null ? {} : { eventId: ticket.event_id }),
              ...(ticket.entry_time === null ? {} : { entryTime: ticket.entry_time }),
            },
            context.signer,
          )
        : null,
    ),
  );
  const unitItems: UnitItem[] = tickets.map((ticket, i) => ({
    uuid: ticket.ticket_id,
    resellerReference: null,
    supplierReference: ticket.confirmation_code,
    unitId: ticket.category,
    status: unitStatuses[i]!,
    utcRedeemedAt: ticket.admitted_at,
    contact: NO_CONTACT,
    ticket: {
      redemptionMethod: "DIGITAL",
      utcRedeemedAt: ticket.admitted_at,
      deliveryOptions: codes[i] ? [{ deliveryFormat: "QRCODE", deliveryValue: codes[i]! }] : [],
    },
  }));
  const cancelledAt = latest(tickets.map((t) => (t.hold_state === "ran-out" ? t.hold_until : t.cancelled_at)));
  const paid = tickets.reduce((sum, t) => sum + (t.hold_until === null ? t.price_cents : 0), 0);
  const refunded = tickets.reduce((sum, t) => sum + (t.refund_cents ?? 0), 0);
  const availability = availabilityOf(record, context.timeZone);
  const first = tickets[0];
  return {
    id: order.order_id,
    uuid: order.order_id,
    testMode: false,
    resellerReference: order.reference,
    supplierReference: order.confirmation_code,
    status,
    utcCreatedAt: order.created_at,
    utcUpdatedAt: latest([order.updated_at ?? order.created_at, cancelledAt, ...tickets.map((t) => t.admitted_at)]),
    utcExpiresAt: status === "ON_HOLD" || status === "EXPIRED" ? (first?.hold_until ?? null) : null,
    utcRedeemedAt: status === "REDEEMED" ? latest(tickets.map((t) => t.admitted_at)) : null,
    utcConfirmedAt: status === "ON_HOLD" || status === "EXPIRED" ? null : order.confirmed_at,
    productId: first?.event_id ?? GENERAL_PRODUCT_ID,
    optionId: DEFAULT_OPTION_ID,
    // The box office takes back a sold ticket while it could still be sold (its rule, read with the record).
    cancellable: status === "ON_HOLD" || (status === "CONFIRMED" && tickets.some((t, i) => unitStatuses[i] === "CONFIRMED" && record.stillOnSale.includes(t.ticket_id))),
    cancellation:
      status === "CANCELLED" || status === "EXPIRED"
        ? {
            refund: refunded === 0 ? "NONE" : refunded >= paid ? "FULL" : "PARTIAL",
            reason: tickets.find((t) => t.cancel_reason !== null)?.cancel_reason ?? null,
            utcCancelledAt: cancelledAt ?? order.updated_at ?? order.created_at,
          }
        : null,
    freesale: false,
    availabilityId: availability?.id ?? null,
    availability,
    contact: contactOf(record),
    notes: order.notes,
    deliveryMethods: ["TICKET"],
    voucher: null,
    unitItems,
  };
}
