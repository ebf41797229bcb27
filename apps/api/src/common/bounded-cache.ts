// A bounded least-recently-used cache with per-entry expiry on a plain Map: memory grows with the entries held (a
// preallocating LRU of 100,000-200,000 slots cost 5-10 MB per cache before its first entry), oldest dropped at `max`.
// Pure, no timers: an expired entry is dropped when it is next read, or when it reaches the front of the eviction order.

export interface BoundedCacheOptions<K, V> {
  /** Most entries kept; the least recently used goes first. */
  max: number;
  /** Default time to live (ms); 0 or absent: entries do not expire. */
  ttl?: number;
  /** Told of every entry that leaves (deleted, replaced, evicted, expired, cleared). */
  dispose?: (value: V, key: K) => void;
  /** The clock (ms), for tests. */
  now?: () => number;
}

interface Slot<V> {
  value: V;
  /** Expiry time (ms); Infinity when the entry does not expire. */
  expires: number;
}

export class BoundedCache<K, V> {
  private readonly map = new Map<K, Slot<V>>();
  private readonly max: number;
  private readonly ttl: number;
  private readonly dispose: ((value: V, key: K) => void) | undefined;
  private readonly now: () => number;

  // A cache of at most `max` entries.
  constructor(options: BoundedCacheOptions<K, V>) {
    if (!Number.isInteger(options.max) || options.max < 1) throw new Error('BoundedCache max must be an integer ≥ 1');
    this.max = options.max;
    this.ttl = options.ttl ?? 0;
    this.dispose = options.dispose;
    this.now = options.now ?? Date.now;
  }

  // The live value of a key (made the most recently used), or undefined.
  get(key: K): V | undefined {
    const slot = this.map.get(key);
    if (!slot) return undefined;
    if (slot.expires <= this.now()) {
      this.remove(key, slot);
      return undefined;
    }
    // Re-inserting moves the key to the end of the Map's order: the most recently used.
    this.map.delete(key);
    this.map.set(key, slot);
    return slot.value;
  }

  // True when the key has a live value (its recency is not changed).
  has(key: K): boolean {
    const slot = this.map.get(key);
    if (!slot) return false;
    if (slot.expires <= this.now()) {
      this.remove(key, slot);
      return false;
    }
    return true;
  }

  // Stores a value (`ttl` overrides the default for this entry); evicts the least recently used beyond `max`.
  set(key: K, value: V, options: { ttl?: number } = {}): void {
    const ttl = options.ttl ?? this.ttl;
    const old = this.map.get(key);
    if (old) {
      this.map.delete(key);
      if (old.value !== value) this.dispose?.(old.value, key);
    }
    this.map.set(key, { value, expires: ttl > 0 ? this.now() + ttl : Infinity });
    while (this.map.size > this.max) {
      const first = this.map.keys().next();
      if (first.done) break;
      this.remove(first.value, this.map.get(first.value)!);
    }
  }

  // Forgets a key; true when it was held.
  delete(key: K): boolean {
    const slot = this.map.get(key);
    if (!slot) return false;
    this.remove(key, slot);
    return true;
  }

  // Forgets every entry.
  clear(): void {
    const entries = [...this.map];
    this.map.clear();
    if (this.dispose) for (const [key, slot] of entries) this.dispose(slot.value, key);
  }

  /** Entries held now (expired ones not yet dropped included). */
  get size(): number {
    return this.map.size;
  }

  // Drops one entry and tells dispose.
  private remove(key: K, slot: Slot<V>): void {
    this.map.delete(key);
    this.dispose?.(slot.value, key);
  }
}
