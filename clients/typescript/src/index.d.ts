// Declarations of index.js. The request and response types come from
// schema.d.ts, generated from the service's OpenAPI document.
import type { Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths, webhooks } from "./schema.js";

/** The typed client: `client.GET("/special-events/{eventId}", { params: { path: { eventId } } })`. */
export type MuseumClient = Client<paths>;

/** An RFC 9457 problem: the body of every error response (`error` of a call). */
export type Problem = components["schemas"]["Problem"];

export type Schemas = components["schemas"];

export interface MuseumClientOptions {
  /** The service's origin, e.g. "https://museum.example"; the client adds `/v1.1`. */
  baseUrl: string | URL;
  /** Account name (HTTP Basic). */
  username: string;
  /** Account secret (HTTP Basic). */
  password: string;
  /** A fetch of your own (tests, proxies); the global one otherwise. */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export type TicketImage =
  | { kind: "image"; image: Uint8Array; etag: string | null; response: Response }
  | { kind: "not-modified"; etag: string; response: Response }
  | { kind: "problem"; problem: Problem; response: Response };

export declare const API_BASE_PATH: "/v1.1";
export declare function basicAuthorization(username: string, password: string): string;
export declare function createMuseumClient(options: MuseumClientOptions): MuseumClient;
export declare function getTicketImage(
  client: MuseumClient,
  ticketId: string,
  options?: { etag?: string | null },
): Promise<TicketImage>;
