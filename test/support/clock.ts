import { afterEach, vi } from "vitest";

/**
 * Fixes the clock that the Worker under test sees (it runs in the test's
 * isolate). Only `Date` is faked, so timers and I/O behave normally.
 */
export function useClock(iso: string) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(iso));
}

afterEach(() => {
  vi.useRealTimers();
});
