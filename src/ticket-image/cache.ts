import { sha256Hex } from "../platform/crypto";
import { log } from "../platform/log";
import { TtlCache } from "../platform/ttl-cache";
import { rememberTicket, type TicketForImage } from "./lookup";
import { TICKET_IMAGE_LAYOUT_VERSION } from "./card";
import { renderTicketPng, type PngBytes } from "./render";
import type { CodeSigner } from "./code-keys";
import { signTicketCode } from "./token";

/**
 * A strong ETag for a ticket's image: it changes exactly when the picture
 * would (anything printed on the card or named by its code, the cancelled
 * state, the layout version, or the key that signs the code: its id and its
 * public half, so a key replaced under the same id changes it too). The
 * edge-cache key holds the ETag, so it changes with it.
 */
export async function ticketImageEtag(ticket: TicketForImage, signer: CodeSigner): Promise<string> {
  const fingerprint = JSON.stringify([
    TICKET_IMAGE_LAYOUT_VERSION,
    signer.kid,
    signer.x,
    ticket.ticketId,
    ticket.ticketType,
    ticket.ticketDate,
    ticket.category,
    ticket.confirmationCode,
    ticket.eventId ?? null,
    ticket.eventName ?? null,
    ticket.entryTime ?? null,
    ticket.categoryName,
    ticket.cancelled,
  ]);
  return `"${(await sha256Hex(fingerprint)).slice(0, 32)}"`;
}

/** RFC 9110 If-None-Match: `*`, or a list of (possibly weak) tags. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

/**
 * First level: this isolate's memory, at most 256 images for 10 minutes each
 * (keyed by ETag, so an entry is never stale; the time bound only returns the
 * memory of images nobody asks for, and a later fetch finds the edge cache).
 * @internal (for tests)
 */
export const IMAGE_MEMORY_TTL_MS = 10 * 60_000;
const memory = new TtlCache<PngBytes>({ maxEntries: 256, ttlMs: IMAGE_MEMORY_TTL_MS });

// Second level: the data centre's edge cache. The key is internal (never a
// client URL) and holds the ETag, so a changed ticket can never hit an old
// image; entries are only read after the request passed authentication and
// the ticket's lookup (lookup.ts) found it the caller's to see.
function edgeCacheKey(ticketId: string, etag: string): Request {
  return new Request(`https://ticket-images.museum-api.internal/${ticketId}/${etag.replaceAll('"', "")}.png`);
}

export type TicketImage = { png: PngBytes; source: "memory" | "in-flight" | "edge" | "rendered" };

type WaitUntil = (promise: Promise<unknown>) => void;

// Renders under way in this isolate, by ETag: a fetch that arrives while the
// same image is being drawn (a kiosk asking right after the sale's prerender
// began) waits for that render instead of drawing it a second time.
const rendering = new Map<string, Promise<PngBytes>>();

/** The image already in this isolate: in memory, or being rendered. */
async function imageInIsolate(etag: string): Promise<TicketImage | undefined> {
  const inMemory = memory.get(etag);
  if (inMemory) return { png: inMemory, source: "memory" };
  const pending = rendering.get(etag);
  if (pending) return { png: await pending, source: "in-flight" };
  return undefined;
}

/** Renders the image and stores it in both caches; `waitUntil` lets the edge-cache write outlive the response. */
function renderAndStore(ticket: TicketForImage, signer: CodeSigner, etag: string, waitUntil: WaitUntil): Promise<PngBytes> {
  const render = (async () => {
    const png = await renderTicketPng(ticket, await signTicketCode(ticket, signer));
    memory.set(etag, png);
    waitUntil(
      caches.default.put(
        edgeCacheKey(ticket.ticketId, etag),
        new Response(png, {
          headers: { "Content-Type": "image/png", "Cache-Control": "public, max-age=31536000, immutable" },
        }),
      ),
    );
    return png;
  })();
  rendering.set(etag, render);
  const settled = () => rendering.delete(etag);
  render.then(settled, settled);
  return render;
}

/**
 * The ticket's PNG: from this isolate's memory (or its render under way),
 * else the edge cache, else rendered (resvg) and stored in both.
 */
export async function loadTicketImage(
  ticket: TicketForImage,
  signer: CodeSigner,
  etag: string,
  waitUntil: WaitUntil,
): Promise<TicketImage> {
  const inIsolate = await imageInIsolate(etag);
  if (inIsolate) return inIsolate;

  const cached = await caches.default.match(edgeCacheKey(ticket.ticketId, etag));
  if (cached) {
    const png = new Uint8Array(await cached.arrayBuffer());
    memory.set(etag, png);
    return { png, source: "edge" };
  }
  // A render may have begun during the lookup (a sale's pre-render): join it rather than draw twice.
  const meanwhile = await imageInIsolate(etag);
  if (meanwhile) return meanwhile;
  return { png: await renderAndStore(ticket, signer, etag, waitUntil), source: "rendered" };
}

/**
 * Renders tickets just sold (by the account `soldBy`; never a held order's:
 * a ticket not sold has no image) into the caches
 * `GET /tickets/{id}/qr` reads (same ETag, same signer), from the sale's own
 * answer (no read), and remembers their facts with their seller, so the
 * kiosk's first fetch of an image draws nothing and reads no D1. Run off the
 * response path (`waitUntil`); turned on by PRERENDER_TICKET_IMAGES
 * (docs/operations.md). A failure is logged, never thrown: the fetch then
 * renders as it would without this.
 */
export async function prerenderSoldTickets(
  sales: readonly Omit<TicketForImage, "cancelled">[],
  soldBy: string,
  signer: CodeSigner,
): Promise<void> {
  const tickets = sales.map((sale): TicketForImage => ({
    ticketId: sale.ticketId,
    ticketType: sale.ticketType,
    ticketDate: sale.ticketDate,
    category: sale.category,
    confirmationCode: sale.confirmationCode,
    ...(sale.eventId === undefined ? {} : { eventId: sale.eventId }),
    ...(sale.eventName === undefined ? {} : { eventName: sale.eventName }),
    ...(sale.entryTime === undefined ? {} : { entryTime: sale.entryTime }),
    categoryName: sale.categoryName,
    cancelled: false,
  }));
  for (const ticket of tickets) rememberTicket(ticket, soldBy);
  for (const ticket of tickets) {
    // Each render waits for a timer: the crypto awaits resolve as microtasks, so a render started
    // at once would run before the response leaves; one at a time lets a GET in between them.
    await scheduler.wait(0);
    await prerender(ticket, signer);
  }
}

async function prerender(ticket: TicketForImage, signer: CodeSigner): Promise<void> {
  try {
    const etag = await ticketImageEtag(ticket, signer);
    // A ticket sold a moment ago cannot be in the edge cache yet: no lookup there.
    if (await imageInIsolate(etag)) return;
    const writes: Promise<unknown>[] = [];
    await renderAndStore(ticket, signer, etag, (write) => writes.push(write));
    await Promise.all(writes);
  } catch (error) {
    log.warn("ticket image prerender failed", { ticketId: ticket.ticketId, error });
  }
}
