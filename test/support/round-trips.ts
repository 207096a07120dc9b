import { d1RoundTrips } from "./d1-faults";
import { api, type AccountKey } from "./helpers";
import { roundTripsAtLastResponse, settleWaitUntil } from "./worker";

/** One client address for every measured request, so the isolate's login memory applies to them. */
export const MEASURED_CLIENT = { "CF-Connecting-IP": "198.18.14.14" };

/**
 * Makes `account`'s login from MEASURED_CLIENT a remembered one (the hot
 * path's condition). Any answer but 401/429 means the credentials were
 * verified (a gate's 403 on the hours comes after the login).
 */
export async function warmLogin(account: AccountKey): Promise<void> {
  const res = await api("/v1.1/museum-hours", { as: account, headers: MEASURED_CLIENT });
  if (res.status === 401 || res.status === 429) throw new Error(`login warm-up answered ${res.status}`);
  await res.arrayBuffer();
}

/**
 * The D1 round trips of one request: `roundTrips`, those made before the
 * Worker returned its response (what the client waits for), and
 * `afterResponse`, those of its `waitUntil` work (off the response path).
 */
export async function roundTripsOf(send: () => Promise<Response>): Promise<{ res: Response; roundTrips: number; afterResponse: number }> {
  await settleWaitUntil();
  const before = d1RoundTrips();
  const res = await send();
  const returned = roundTripsAtLastResponse();
  await res.clone().arrayBuffer();
  await settleWaitUntil();
  return { res, roundTrips: returned - before, afterResponse: d1RoundTrips() - returned };
}
