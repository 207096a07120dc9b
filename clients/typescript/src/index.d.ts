// Declarations of index.js. The request and response types come from
// schema.d.ts, generated from the service's OpenAPI document.
import type { Client, FetchResponse, MaybeOptionalInit } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths, webhooks } from "./schema.js";

type Method = "get" | "put" | "post" | "delete" | "patch";
type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: {} } ? P : never }[keyof paths];
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/**
 * What an object `body` of `Init` must also be: every key the operation's
 * body (`Allowed`) lacks typed `never`. The service refuses unknown fields
 * (400); TypeScript alone would let one through where every field is
 * optional (`{ reson: "…" }` for `{ reason?: string }`), as the body is
 * inferred, not checked as a literal.
 */
type ExactBody<Init, Allowed> = Init extends { body: infer Body }
  ? Body extends readonly unknown[]
    ? unknown
    : Body extends object
      ? { body: { [K in Exclude<keyof Body, KeysOfUnion<NonNullable<Allowed>>>]: never } }
      : unknown
  : unknown;

/** openapi-fetch's init parameter (optional when nothing in it is required). */
type InitParam<Init> = RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/**
 * The operation at `paths[P][M]`. For a `P` of `PathsWith<M>` it is always
 * an operation, but TypeScript does not narrow an indexed access by that
 * filter: to it `paths[P][M]` may still be the `undefined` of another
 * path's absent method, which `FetchResponse` refuses (TS2344 when a
 * consumer checks declarations, i.e. without `skipLibCheck`).
 */
type Operation<P extends keyof paths, M extends Method> = paths[P][M] extends infer Op extends Record<string | number, any> ? Op : never;

type ExactMethod<M extends Method> = <P extends PathsWith<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitParam<Init & ExactBody<Init, NonNullable<MaybeOptionalInit<paths[P], M>>["body"]>>
) => Promise<FetchResponse<Operation<P, M>, Init, `${string}/${string}`>>;

/**
 * The typed client: `client.GET("/special-events/{eventId}", { params: { path: { eventId } } })`.
 * openapi-fetch's client, whose request bodies are exact: a field the
 * operation does not have fails to compile.
 */
export type MuseumClient = Omit<Client<paths>, "GET" | "PUT" | "POST" | "DELETE" | "PATCH"> & {
  GET: ExactMethod<"get">;
  PUT: ExactMethod<"put">;
  POST: ExactMethod<"post">;
  DELETE: ExactMethod<"delete">;
  PATCH: ExactMethod<"patch">;
};

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

export type GateKeySet = Schemas["GateKeySet"];
export type GateConfig = Schemas["GateConfig"];

/** What a genuine ticket code says (its JWS payload), and the key that signed it. */
export interface TicketCodeClaims {
  tid: string;
  typ: "general" | "event";
  date: string;
  cat: string;
  eid?: string;
  ent?: string;
  kid: string;
}

/** The ticket a genuine code names. */
export interface CheckedTicket {
  ticketId: string;
  ticketType: "general" | "event";
  ticketDate: string;
  category: string;
  eventId?: string;
  entryTime?: string;
}

/** An offline gate's judgement of a code: what `POST /admissions` would answer. */
export type TicketCodeCheck =
  | { outcome: "invalid-ticket-code" }
  | (CheckedTicket & { outcome: "admitted" | "not-valid-today" | "too-early" | "revoked" })
  | (CheckedTicket & { outcome: "too-late"; timeClose: string });

export interface TicketCodeCheckInput {
  /** The text read from the ticket's QR code. */
  code: string;
  /** `GET /gate/keys`. */
  keys: GateKeySet;
  /** `GET /gate/config`. */
  config: GateConfig;
  /** The ticket ids of `GET /gate/revocations`. */
  revoked?: Iterable<string>;
  /** The gate's clock; now by default. */
  now?: Date;
}

/** The longest text a gate reads as a code (the service signs 337 characters at most); a longer one is not genuine. */
export declare const MAX_CODE_LENGTH: 350;
/** Unpadded base64url (RFC 4648 §5) of `bytes`: how each part of a code is written. */
export declare function base64url(bytes: Uint8Array): string;
/** The name of a claim of a code's payload. */
export type TicketCodeClaimName = "tid" | "typ" | "date" | "cat" | "eid" | "ent";
/**
 * The first claim of `claims` (in the order they are written) that is not as
 * the service writes it, or null when all are: `tid` a lower-case UUID, `typ`
 * `general` or `event`, `date` a calendar date, `cat` a category id, `eid`
 * the UUID of an event ticket's event (and only an event ticket's), `ent` the
 * `HH:mm` of a general ticket. Members other than these are not looked at.
 */
export declare function invalidClaim(claims: { [name: string]: unknown }): TicketCodeClaimName | null;
/**
 * Verifies a code's Ed25519 signature (WebCrypto) and shape with the key
 * `verifierOf` gives for its `kid` (undefined: an unknown kid); null when
 * it is not genuine. Never throws on a scanned text.
 */
export declare function verifyTicketCodeWith(
  code: string,
  verifierOf: (kid: string) => CryptoKey | Promise<CryptoKey> | undefined,
): Promise<TicketCodeClaims | null>;
/** Verifies a code's Ed25519 signature (WebCrypto) and shape against a JWK Set; null when it is not genuine. */
export declare function verifyTicketCode(code: string, keys: GateKeySet): Promise<TicketCodeClaims | null>;
/** Judges a code as the service would, from what the gate synced. */
export declare function checkTicketCode(input: TicketCodeCheckInput): Promise<TicketCodeCheck>;
/** The museum's date and `HH:mm` time at `now` in `timeZone`. */
export declare function museumNow(timeZone: string, now: Date): { today: string; time: string };
