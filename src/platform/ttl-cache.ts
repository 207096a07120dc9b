export type TtlCacheOptions = {
  /** At most this many entries; storing one more evicts the oldest. */
  maxEntries: number;
  /** How long an entry lives after it was stored (never extended by reads). */
  ttlMs: number;
  /** The clock, in milliseconds; `Date.now()` as it is at each call by default (a test's fake clock included). */
  now?: () => number;
};

/**
 * A bounded map whose entries expire: this isolate's memory of things that
 * are cheap to look up again. Oldest stored goes first when full. An entry
 * stored under a clock that has since gone back counts as expired.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: TtlCacheOptions) {
    this.#maxEntries = options.maxEntries;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? (() => Date.now());
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const now = this.#now();
    if (entry.expires <= now || entry.expires - this.#ttlMs > now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    // Deleted first, so that a stored-again entry counts as the newest.
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#now() + this.#ttlMs });
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every entry whose key passes `test`. */
  deleteWhere(test: (key: string) => boolean): void {
    for (const key of this.#entries.keys()) if (test(key)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
