import { describe, expect, it, vi } from "vitest";
import { TtlCache } from "../../src/platform/ttl-cache";

function cacheAt(start: number, options: { maxEntries?: number; ttlMs?: number } = {}) {
  let now = start;
  const cache = new TtlCache<string>({ maxEntries: options.maxEntries ?? 3, ttlMs: options.ttlMs ?? 1_000, now: () => now });
  return { cache, setNow: (ms: number) => (now = ms) };
}

describe("TtlCache", () => {
  it("returns a value until its time is up, then forgets it", () => {
    const { cache, setNow } = cacheAt(10_000);
    cache.set("a", "A");
    setNow(10_999);
    expect(cache.get("a")).toBe("A");
    setNow(11_000);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("does not extend an entry's life when it is read", () => {
    const { cache, setNow } = cacheAt(0);
    cache.set("a", "A");
    setNow(900);
    expect(cache.get("a")).toBe("A");
    setNow(1_000);
    expect(cache.get("a")).toBeUndefined();
  });

  it("treats an entry stored under a clock that has since gone back as expired", () => {
    const { cache, setNow } = cacheAt(50_000);
    cache.set("a", "A");
    setNow(48_999);
    expect(cache.get("a")).toBeUndefined();
  });

  it("evicts the oldest stored entry when full; storing again makes an entry the newest", () => {
    const { cache } = cacheAt(0);
    cache.set("a", "A");
    cache.set("b", "B");
    cache.set("c", "C");
    cache.set("a", "A2");
    cache.set("d", "D");
    expect(cache.size).toBe(3);
    expect(cache.get("b")).toBeUndefined();
    expect([cache.get("a"), cache.get("c"), cache.get("d")]).toEqual(["A2", "C", "D"]);
  });

  it("deletes one key, the keys that pass a test, or everything", () => {
    const { cache } = cacheAt(0, { maxEntries: 10 });
    for (const key of ["x:1", "x:2", "y:1"]) cache.set(key, key);
    cache.delete("x:1");
    expect(cache.get("x:1")).toBeUndefined();
    cache.deleteWhere((key) => key.startsWith("x:"));
    expect([cache.get("x:2"), cache.get("y:1")]).toEqual([undefined, "y:1"]);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it("reads Date.now() at each call when no clock is given, so a clock faked after it was made applies", () => {
    const cache = new TtlCache<number>({ maxEntries: 1, ttlMs: 60_000 });
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.UTC(2026, 0, 1));
      cache.set("k", 1);
      vi.setSystemTime(Date.UTC(2026, 0, 1) + 59_999);
      expect(cache.get("k")).toBe(1);
      vi.setSystemTime(Date.UTC(2026, 0, 1) + 60_000);
      expect(cache.get("k")).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
