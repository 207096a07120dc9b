import { d1RoundTrips } from "./d1-faults";
import { api, type AccountKey } from "./helpers";
import { settleWaitUntil } from "./worker";

/** One client address for every measured request, so the isolate's login memory applies to them. */
export const MEASURED_CLIENT = { "CF-Connecting-IP": "198.18.14.14" };

/** Makes `account`'s login from MEASURED_CLIENT a remembered one (the hot path's condition). */
export async function warmLogin(account: AccountKey): Promise<void> {
  const res = await api("/v1.1/museum-hours", { as: account, headers: MEASURED_CLIENT });
  if (res.status !== 200) throw new Error(`login warm-up answered ${res.status}`);
  await res.arrayBuffer();
}

/** The D1 round trips one request made, its `waitUntil` work included. */
export async function roundTripsOf(send: () => Promise<Response>): Promise<{ res: Response; roundTrips: number }> {
  await settleWaitUntil();
  const before = d1RoundTrips();
  const res = await send();
  await res.clone().arrayBuffer();
  await settleWaitUntil();
  return { res, roundTrips: d1RoundTrips() - before };
}
