import type { TicketImageInput } from "../../src/ticket-image";

/** The API description's sample tickets, as the card renders them. */
export const GENERAL_TICKET: TicketImageInput = {
  ticketId: "b811f723-17b2-44f7-8952-24b03e43d8a9",
  ticketType: "general",
  ticketDate: "2023-09-07",
  confirmationCode: "ticket-general-e5e5c6-dce78",
  categoryName: "Adult",
  cancelled: false,
};

export const EVENT_TICKET: TicketImageInput = {
  ticketId: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
  ticketType: "event",
  ticketDate: "2023-09-05",
  confirmationCode: "ticket-event-9c55eg-8v82a",
  eventName: "Pirate Coding Workshop",
  categoryName: "Child",
  cancelled: false,
};
