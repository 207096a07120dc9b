// The Museum API client: openapi-fetch over the types generated from the
// service's own OpenAPI document (schema.d.ts), with Basic credentials and
// one helper for the ticket image (binary body, If-None-Match / 304).
// Plain JavaScript with declarations beside it (index.d.ts), so Node runs it
// without a build step.
import createClient from "openapi-fetch";

export * from "./gate.js";

/** Where the service serves interface 1.1 (the document's `servers[0].url`). */
export const API_BASE_PATH = "/v1.1";

/** The Authorization header value of HTTP Basic credentials (UTF-8, as the service reads them). */
export function basicAuthorization(username, password) {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** A typed client of the service at `baseUrl` (its origin, e.g. "https://museum.example") with an account's credentials. */
export function createMuseumClient({ baseUrl, username, password, fetch, headers = {} }) {
  return createClient({
    baseUrl: `${String(baseUrl).replace(/\/+$/, "")}${API_BASE_PATH}`,
    headers: { ...headers, Authorization: basicAuthorization(username, password) },
    ...(fetch ? { fetch } : {}),
  });
}

/**
 * GET /tickets/{ticketId}/qr. With the `etag` of an image already held,
 * an unchanged ticket answers 304 and nothing is downloaded.
 */
export async function getTicketImage(client, ticketId, { etag } = {}) {
  const { data, error, response } = await client.GET("/tickets/{ticketId}/qr", {
    params: { path: { ticketId } },
    headers: etag ? { "If-None-Match": etag } : {},
    parseAs: "arrayBuffer",
  });
  if (response.status === 304) return { kind: "not-modified", etag, response };
  if (data !== undefined && response.ok) {
    return { kind: "image", image: new Uint8Array(data), etag: response.headers.get("ETag"), response };
  }
  return { kind: "problem", problem: error, response };
}
