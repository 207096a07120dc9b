/**
 * The OpenAPI document's tags. The first three are the reference Museum API
 * 1.1.1's own (same names and descriptions); every operation this service
 * adds to the reference carries a tag of its own, marked as an addition, so a
 * reader of the docs tells the published interface from the museum's extras.
 */
export const OPENAPI_TAGS = [
  { name: "Operations", description: "Operational information about the museum." },
  { name: "Events", description: "Special events hosted by the museum." },
  { name: "Tickets", description: "Museum tickets for general entrance or special events." },
  {
    name: "Hours administration",
    description:
      "Addition to the Museum API 1.1.1 (not in the reference description): the weekly schedule and dated exceptions (closures, special hours) that `GET /museum-hours` is computed from. Admin only.",
  },
  {
    name: "Ticket categories",
    description:
      "Addition to the Museum API 1.1.1 (not in the reference description): adult, child, concession, member… and their prices; a purchase naming no category is in the default one. Listing: admin, box-office, sales; changes: admin.",
  },
  {
    name: "Availability",
    description:
      "Addition to the Museum API 1.1.1 (not in the reference description): what is left to sell on a day, for general entry (per entry slot on a timed day) and each event, under the optional limits of docs/capacity.md.",
  },
  {
    name: "Admissions",
    description:
      "Addition to the Museum API 1.1.1 (not in the reference description): a ticket's status after the sale, admission at the gate (role `gate` or `admin`), and a day's attendance. Each operation lists the roles that may call it in `x-roles`.",
  },
  {
    name: "Orders",
    description:
      "Addition to the Museum API 1.1.1 (not in the reference description): several tickets bought all or nothing in one purchase (1 to 50 lines), and an order's status. Roles: admin, box-office, sales (only its own orders).",
  },
  {
    name: "Cancellation",
    description:
      "Addition to the Museum API 1.1.1 (not in the reference description): the box office gives a ticket or a whole order back while it could still be sold, with the refund owed (docs/orders.md). Admin and box-office: any; sales: what it sold itself.",
  },
  {
    name: "Webhooks",
    description:
      "Addition to the Museum API (the 1.2.1 description has the `publishNewEvent` webhook but no way to subscribe): subscriptions that receive every created or updated special event, signed per Standard Webhooks, and their recent deliveries. Admin only.",
  },
  {
    name: "Service",
    description:
      "Addition to the Museum API 1.1.1 (not in the reference description): the service's health check, served at the root (outside /v1.1). Public.",
  },
];
